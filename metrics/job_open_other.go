//go:build !unix

package metrics

import "os"

// logFile is a log opened for reading (job_open_unix.go has why it is
// not an *os.File on unix).
type logFile struct{ *os.File }

func openLog(path string) (*logFile, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	return &logFile{f}, nil
}

func (f *logFile) size() (int64, error) {
	info, err := f.Stat()
	if err != nil {
		return 0, err
	}
	return info.Size(), nil
}

func (f *logFile) close() { f.Close() }
