package config

import (
	"flag"
	"fmt"
	"strconv"

	"github.com/mneme-dev/mneme/agent"
)

// The context (num_ctx) a chat model runs with. mneme sends it with every
// request (see agent.ChooseContext):
//
//   - num_ctx (--num-ctx, MNEME_NUM_CTX) sets it outright;
//   - otherwise it is the model's num_ctx parameter if its Modelfile has
//     one, else the model's context_length capped by num_ctx_max
//     (--num-ctx-max, MNEME_NUM_CTX_MAX; default 8192), else the cap.
//
// For both settings 0 means unset; any other value must be 512-1048576
// tokens, whether it comes from a flag, the environment or the file.
type contextConfig struct {
	NumCtx    int `toml:"num_ctx"`
	NumCtxMax int `toml:"num_ctx_max"`
}

// Environment variables of the context.
const (
	envNumCtx    = "MNEME_NUM_CTX"
	envNumCtxMax = "MNEME_NUM_CTX_MAX"
)

// intFlag is an int flag that knows whether it was given.
type intFlag struct {
	n   int
	set bool
}

func (f *intFlag) String() string {
	if f == nil || !f.set {
		return ""
	}
	return strconv.Itoa(f.n)
}

func (f *intFlag) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("want a whole number of tokens")
	}
	f.n, f.set = n, true
	return nil
}

// contextFlags are the context flags every command takes.
type contextFlags struct {
	numCtx, numCtxMax intFlag
}

func (c *contextFlags) register(fs *flag.FlagSet) {
	fs.Var(&c.numCtx, "num-ctx", "context in tokens sent to the model as num_ctx (env "+envNumCtx+
		"; default: the model's context length, at most --num-ctx-max)")
	fs.Var(&c.numCtxMax, "num-ctx-max", fmt.Sprintf("cap on the context taken from the model's context length (env %s; default %d)",
		envNumCtxMax, agent.DefaultMaxContext))
}

// resolve applies the flags, then the environment, over the file's values
// and checks them the same way whichever gave them.
func (c *contextConfig) resolve(flags contextFlags, getenv func(string) string, file string) error {
	for _, s := range []struct {
		flag *intFlag
		name string // flag name
		env  string
		key  string // file key
		dst  *int
	}{
		{&flags.numCtx, "num-ctx", envNumCtx, "num_ctx", &c.NumCtx},
		{&flags.numCtxMax, "num-ctx-max", envNumCtxMax, "num_ctx_max", &c.NumCtxMax},
	} {
		where := fmt.Sprintf("config %s: %s = %d", file, s.key, *s.dst)
		switch v := getenv(s.env); {
		case s.flag.set:
			*s.dst, where = s.flag.n, fmt.Sprintf("--%s %d", s.name, s.flag.n)
		case v != "":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("%s=%q: want a whole number of tokens", s.env, v)
			}
			*s.dst, where = n, fmt.Sprintf("%s=%s", s.env, v)
		}
		if *s.dst == 0 {
			continue // unset
		}
		if err := agent.CheckContext(*s.dst); err != nil {
			return fmt.Errorf("%s: %w (0 leaves it unset)", where, err)
		}
	}
	if c.NumCtxMax == 0 {
		c.NumCtxMax = agent.DefaultMaxContext
	}
	return nil
}
