package table

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"unicode/utf8"
)

// readInto appends what r holds to data, as io.ReadAll does, and returns
// it; more than limit bytes in all is a *BudgetError for source, found
// as the byte after the limit is read. What does not fit in data's
// capacity is read into chunks (64 kB, doubling up to 64 MB) joined once
// at the end, so that the bytes are held once while they are read and
// twice only while joined, and input refused at the limit was held once
// (growing one buffer by doubling held the old buffer beside one twice as
// large: benchmarks/tables-session17.md). The chunks are made: make
// clears a large slice in steps the collector can preempt; append's
// growth clears it in one call, which on tens of megabytes left the
// collector spinning (benchmarks/tables-session11.md).
func readInto(data []byte, r io.Reader, limit int64, source string) ([]byte, error) {
	parts := [][]byte{data}
	total, size := int64(len(data)), 64<<10
	for {
		cur := parts[len(parts)-1]
		if len(cur) == cap(cur) {
			if len(parts) > 1 || cap(cur) >= size {
				size = min(2*size, 64<<20)
			}
			// No more than the byte after the limit needs.
			parts = append(parts, make([]byte, 0, min(int64(size), limit+1-total)))
			continue
		}
		// At most the byte after the limit.
		room := min(int64(cap(cur)-len(cur)), limit+1-total)
		n, err := r.Read(cur[len(cur) : len(cur)+int(room)])
		parts[len(parts)-1] = cur[:len(cur)+n]
		total += int64(n)
		if total > limit {
			return nil, &BudgetError{Source: source, Budget: limit}
		}
		if err == io.EOF {
			return join(parts, total), nil
		}
		if err != nil {
			return nil, err
		}
	}
}

// join is parts end to end (the first itself when it is the only one).
func join(parts [][]byte, total int64) []byte {
	if len(parts) == 1 {
		return parts[0]
	}
	out := make([]byte, 0, total)
	for i := range parts {
		out = append(out, parts[i]...)
		parts[i] = nil
	}
	return out
}

// ReadAll reads a table's bytes from r (standard input, say) for Decode.
// Its first bytes are judged before the rest is read: input that is no
// table format (binary that is neither Arrow nor Parquet) is refused at
// once, however long it goes on; and no more than the memory budget is
// read. Empty input is nil data and no error.
func ReadAll(r io.Reader, source string) ([]byte, error) {
	if f, ok := r.(interface{ Stat() (os.FileInfo, error) }); ok {
		if info, err := f.Stat(); err == nil && info.IsDir() {
			return nil, Errorf(source, "is a directory: redirect a table file, not a directory")
		}
	}
	head := make([]byte, textHeadBytes)
	n, err := io.ReadFull(r, head)
	head = head[:n]
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, readError(source, err)
	}
	if n < textHeadBytes {
		return head, nil // all of it: Decode judges it
	}
	// The head less the character its end may split.
	if Sniff(head) == CSV {
		if err := checkText(bytes.TrimPrefix(head[:n-utf8.UTFMax], utf8BOM), source); err != nil {
			return nil, err
		}
	}
	budget := MemoryBudget()
	data, err := readInto(head, r, budget, source)
	if err != nil {
		return nil, readError(source, err)
	}
	return data, nil
}

// readError locates a read error; reading a directory is the user's
// mistake, not the machine's.
func readError(source string, err error) error {
	var be *BudgetError
	if errors.As(err, &be) {
		return err
	}
	if errors.Is(err, syscall.EISDIR) {
		return Errorf(source, "is a directory: redirect a table file, not a directory")
	}
	return fmt.Errorf("%s: %w", source, err)
}
