package stdin

import (
	"context"
	"io"
)

// Cancelable reads r until ctx ends; then reads fail with ctx's
// error at once, even while r blocks (stdin waiting for more input).
func Cancelable(ctx context.Context, r io.Reader) io.Reader {
	pr, pw := io.Pipe()
	go func() {
		_, err := io.Copy(pw, r)
		pw.CloseWithError(err)
	}()
	context.AfterFunc(ctx, func() { pw.CloseWithError(ctx.Err()) })
	return pr
}
