package tool

import "io"

// CaptureRetained returns how many bytes the capture w, a tool's
// registry.Call.Output, holds in memory (see capture.retained); ok is false
// when w is not a capture.
func CaptureRetained(w io.Writer) (n int, ok bool) {
	c, ok := w.(*capture)
	if !ok {
		return 0, false
	}
	return c.retained(), true
}
