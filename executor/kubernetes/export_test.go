package kubernetes

// SetBeforeWrite makes Apply call f before each write it makes, naming it;
// an error from f stops Apply there as a SIGKILL would (tests only).
func SetBeforeWrite(e *Executor, f func(write string) error) { e.beforeWrite = f }
