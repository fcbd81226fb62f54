package eval

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// FirstLog is a slog handler that keeps the first reply learning logged as
// malformed (a record with the "reply"), else the first record at all, for
// `mneme eval memory` to say when every reply was malformed: eval writes no
// log file, as it writes nothing to the data dir.
type FirstLog struct {
	mu           sync.Mutex
	first, reply string
}

func (f *FirstLog) Enabled(context.Context, slog.Level) bool { return true }
func (f *FirstLog) WithAttrs([]slog.Attr) slog.Handler       { return f }
func (f *FirstLog) WithGroup(string) slog.Handler            { return f }

func (f *FirstLog) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(r.Message)
	withReply := false
	r.Attrs(func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%q", a.Key, a.Value.String())
		withReply = withReply || a.Key == "reply"
		return true
	})
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.first == "" {
		f.first = b.String()
	}
	if withReply && f.reply == "" {
		f.reply = b.String()
	}
	return nil
}

func (f *FirstLog) String() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return cmp.Or(f.reply, f.first)
}
