package metrics

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// MaxLine is the longest line a text log may have; a longer one is skipped
// (and counted) without being held in memory.
const MaxLine = 1 << 20

// scanLines calls fn for every complete line of r (size bytes), numbered
// from 1, without its newline (and carriage return). A last line without
// a newline is one a writer is still writing: it is left for the next run.
// A line longer than MaxLine is reported to warn and skipped.
func scanLines(name string, r io.Reader, size int64, warn Warn, fn func(line []byte, no int) error) error {
	br := bufio.NewReaderSize(io.LimitReader(r, size), 64<<10)
	var long []byte // a line longer than the buffer, up to MaxLine
	no := 0
	for {
		line, err := br.ReadSlice('\n')
		if errors.Is(err, bufio.ErrBufferFull) {
			if len(long)+len(line) > MaxLine {
				n, err := skipRest(br, len(long)+len(line))
				if err != nil {
					return nil // it never ended: a line still being written
				}
				no++
				warn(&Error{File: name, Line: no, Msg: fmt.Sprintf("line of %d bytes is longer than %d: skipped", n, MaxLine)})
				long = long[:0]
				continue
			}
			long = append(long, line...)
			continue
		}
		if err == io.EOF {
			return nil // an unterminated last line, or none
		}
		if err != nil {
			return err
		}
		no++
		if len(long) > 0 {
			line = append(long, line...)
			long = long[:0]
		}
		line = bytes.TrimSuffix(line[:len(line)-1], []byte{'\r'})
		if err := fn(line, no); err != nil {
			return err
		}
	}
}

// skipRest reads up to the end of a line whose first n bytes were read,
// and returns its length.
func skipRest(br *bufio.Reader, n int) (int, error) {
	for {
		line, err := br.ReadSlice('\n')
		n += len(line)
		if err == nil {
			return n - 1, nil
		}
		if !errors.Is(err, bufio.ErrBufferFull) {
			return n, err
		}
	}
}
