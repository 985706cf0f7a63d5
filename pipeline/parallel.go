package pipeline

import "sync"

// ForEach calls work(i) for every i in [0, n), parallel at a time, and
// progress (when not nil) after each, one call at a time. A panic in a
// worker is raised again in the caller's goroutine once the others are
// done, so that the command's recovery reports it as the bug it is rather
// than the process dying with Go's exit status.
func ForEach(n, parallel int, work func(i int), progress func(done, total int)) {
	parallel = max(1, min(parallel, n))
	next := make(chan int)
	var wg sync.WaitGroup
	var mu sync.Mutex
	done := 0
	var crash any
	for range parallel {
		wg.Go(func() {
			defer func() {
				if v := recover(); v != nil {
					mu.Lock()
					if crash == nil {
						crash = v
					}
					mu.Unlock()
					for range next { // let the feeder finish
					}
				}
			}()
			for i := range next {
				work(i)
				if progress != nil {
					mu.Lock()
					done++
					progress(done, n)
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	if crash != nil {
		panic(crash)
	}
}
