package kubernetes

// SetBeforeWrite makes Apply call f before each write it makes, naming it;
// an error from f stops Apply there as a SIGKILL would (tests only). It
// also makes Apply write one job at a time, so that "the nth write" is one
// write of one job; SetWriters after it writes jobs at once again.
func SetBeforeWrite(e *Executor, f func(write string) error) {
	e.beforeWrite = f
	e.opts.Writers = 1
}

// SetWriters sets Options.Writers (tests only).
func SetWriters(e *Executor, n int) { e.opts.Writers = n }
