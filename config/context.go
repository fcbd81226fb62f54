package config

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

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
	n, err := strconv.Atoi(strings.TrimSpace(s)) // as the environment's value is read
	if errors.Is(err, strconv.ErrRange) {
		return fmt.Errorf("a whole number far out of range")
	}
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
	fs.Var(&c.numCtx, "num-ctx", "the context, `N` tokens, sent to the model as num_ctx (env "+envNumCtx+
		"; default: the model's context length, at most --num-ctx-max)")
	fs.Var(&c.numCtxMax, "num-ctx-max", fmt.Sprintf("a cap of `N` tokens on the context taken from the model's context length (env %s; default %d)",
		envNumCtxMax, agent.DefaultMaxContext))
}

// resolve applies the flags, then the environment, over the file's values
// and checks them the same way whichever gave them.
func (c *contextConfig) resolve(flags contextFlags, l layers) {
	for _, w := range []whole{
		{key: "num_ctx", env: envNumCtx, flagName: "num-ctx", flag: &flags.numCtx, dst: &c.NumCtx},
		{key: "num_ctx_max", env: envNumCtxMax, flagName: "num-ctx-max", flag: &flags.numCtxMax, dst: &c.NumCtxMax, def: agent.DefaultMaxContext},
	} {
		w.lo, w.hi, w.unit = agent.MinContext, agent.MaxContext, "tokens"
		w.resolve(l)
	}
}
