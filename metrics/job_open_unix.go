//go:build unix

package metrics

import (
	"io"
	"os"
	"syscall"
)

// logFile is a log opened for reading by its descriptor: os.Open would
// also try to register a regular file with the network poller (which
// refuses it) and set its blocking mode, four system calls more per file
// of a tree of thousands (benchmarks/metrics.md). Errors are the
// *os.PathErrors os.File's would be.
type logFile struct {
	fd   int
	path string
}

func openLog(path string) (*logFile, error) {
	for {
		fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "open", Path: path, Err: err}
		}
		return &logFile{fd: fd, path: path}, nil
	}
}

func (f *logFile) size() (int64, error) {
	var st syscall.Stat_t
	for {
		err := syscall.Fstat(f.fd, &st)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &os.PathError{Op: "stat", Path: f.path, Err: err}
		}
		return st.Size, nil
	}
}

// Read is os.File's Read: io.EOF at the end, EINTR retried.
func (f *logFile) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	for {
		n, err := syscall.Read(f.fd, b)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return 0, &os.PathError{Op: "read", Path: f.path, Err: err}
		}
		if n == 0 {
			return 0, io.EOF
		}
		return n, nil
	}
}

func (f *logFile) close() { syscall.Close(f.fd) }
