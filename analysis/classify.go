package analysis

import (
	"sync"
	"sync/atomic"

	"github.com/dqs/dqs/classify"
	"github.com/dqs/dqs/profile"
)

// classifyColumns classifies every column from its name and sample, as
// many columns at a time as there are CPUs to use. It is the last step of
// an analysis, when the profiling goroutines are done: one column after
// another it kept one core idle for about 5 ms a column (70 ms on the
// 14-column benchmark files).
//
// A panic while classifying a column is raised again on the caller's
// goroutine, where it would have happened before (an activity worker
// recovers it there; on another goroutine it would end the process).
func classifyColumns(cols []profile.Column) []classify.Result {
	out := make([]classify.Result, len(cols))
	var next atomic.Int64
	var failure any
	var once sync.Once
	var wg sync.WaitGroup
	for range min(defaultWorkers(), len(cols)) {
		wg.Go(func() {
			defer func() {
				if r := recover(); r != nil {
					once.Do(func() { failure = r })
				}
			}()
			for i := int(next.Add(1) - 1); i < len(cols); i = int(next.Add(1) - 1) {
				out[i] = classify.Column(cols[i].Name, cols[i].Sample)
			}
		})
	}
	wg.Wait()
	if failure != nil {
		panic(failure)
	}
	return out
}
