package workflows

// ScanSource and ScheduledScan on the SDK's test environment (retry
// back-off skipped), with every activity mocked: each mock records its
// input, attempt and task queue in one ordered log, so a test checks the
// exact sequence of calls the workflow made.

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/mock"
	enumspb "go.temporal.io/api/enums/v1"
	"go.temporal.io/sdk/activity"
	"go.temporal.io/sdk/client"
	"go.temporal.io/sdk/converter"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"
	"go.temporal.io/sdk/workflow"

	"github.com/dqs/dqs/activities"
)

const (
	scanTestQueue    = "dqs-default"
	scanTestAnalysis = "dqs-analysis"
	timeoutMessage   = "the source did not answer in time"
)

var (
	scanTestStart = time.Date(2031, 3, 4, 5, 6, 7, 0, time.UTC)
	scanTestRef   = ScanSourceInput{OrgID: "org-1", ScanID: "scan-1"}
)

// scanCall is one attempt of one activity.
type scanCall struct {
	Activity string
	Attempt  int32
	Queue    string
	Input    any
}

// scanFixture mocks the scan activities. Each behaviour gets the attempt
// (from 1) and the input; the defaults succeed: BeginScan plans nothing,
// ScanItem counts the item scanned with 10 rows, RecordScanItemFailure
// counts it failed.
type scanFixture struct {
	t   *testing.T
	env *testsuite.TestWorkflowEnvironment

	begin         func(attempt int32, in activities.ScanRef) (activities.ScanPlan, error)
	item          func(attempt int32, in activities.ScanItemInput) (activities.ScanTally, error)
	recordFailure func(attempt int32, in activities.ScanItemInput) (activities.ScanTally, error)
	finish        func(attempt int32, in activities.FinishScanInput) error
	detect        func(attempt int32, in activities.ScanRef) (activities.AnomalyTally, error)
	contracts     func(attempt int32, in activities.ScanRef) (activities.ContractTally, error)
	create        func(attempt int32, in activities.ScheduleRef) (string, error)
	recordRun     func(attempt int32, in activities.ScheduledRunFailure) error

	mu    sync.Mutex
	calls []scanCall
	// children are the child workflows started: id and input.
	children []childStart
}

type childStart struct {
	ID    string
	Type  string
	Input ScanSourceInput
}

func newScanFixture(t *testing.T) *scanFixture {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	env.SetStartTime(scanTestStart)
	env.SetStartWorkflowOptions(client.StartWorkflowOptions{TaskQueue: scanTestQueue})
	a := &activities.Activities{}
	env.RegisterActivity(a)
	env.RegisterWorkflow(ScanSource)
	f := &scanFixture{
		t:   t,
		env: env,
		begin: func(int32, activities.ScanRef) (activities.ScanPlan, error) {
			return activities.ScanPlan{}, nil
		},
		item: func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
			tally := in.Tally
			tally.Scanned++
			tally.Rows += 10
			return tally, nil
		},
		recordFailure: func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
			tally := in.Tally
			tally.Failed++
			return tally, nil
		},
		finish: func(int32, activities.FinishScanInput) error { return nil },
		detect: func(int32, activities.ScanRef) (activities.AnomalyTally, error) {
			return activities.AnomalyTally{}, nil
		},
		contracts: func(int32, activities.ScanRef) (activities.ContractTally, error) {
			return activities.ContractTally{}, nil
		},
		create: func(int32, activities.ScheduleRef) (string, error) {
			return "", errors.New("CreateScheduledScan not scripted")
		},
		recordRun: func(int32, activities.ScheduledRunFailure) error { return nil },
	}
	// Maybe: a test checks how often each ran (zero included) on the
	// ordered log, which also keeps the attempts and the order.
	env.OnActivity(a.BeginScan, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ScanRef) (activities.ScanPlan, error) {
			return f.begin(f.record(ctx, "BeginScan", in), in)
		}).Maybe()
	env.OnActivity(a.ScanItem, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ScanItemInput) (activities.ScanTally, error) {
			return f.item(f.record(ctx, "ScanItem", in), in)
		}).Maybe()
	env.OnActivity(a.RecordScanItemFailure, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ScanItemInput) (activities.ScanTally, error) {
			return f.recordFailure(f.record(ctx, "RecordScanItemFailure", in), in)
		}).Maybe()
	env.OnActivity(a.FinishScan, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.FinishScanInput) error {
			return f.finish(f.record(ctx, "FinishScan", in), in)
		}).Maybe()
	env.OnActivity(a.DetectAnomalies, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ScanRef) (activities.AnomalyTally, error) {
			return f.detect(f.record(ctx, "DetectAnomalies", in), in)
		}).Maybe()
	env.OnActivity(a.EvaluateContracts, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ScanRef) (activities.ContractTally, error) {
			return f.contracts(f.record(ctx, "EvaluateContracts", in), in)
		}).Maybe()
	env.OnActivity(a.CreateScheduledScan, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ScheduleRef) (string, error) {
			return f.create(f.record(ctx, "CreateScheduledScan", in), in)
		}).Maybe()
	env.OnActivity(a.RecordScheduledRunFailure, mock.Anything, mock.Anything).Return(
		func(ctx context.Context, in activities.ScheduledRunFailure) error {
			return f.recordRun(f.record(ctx, "RecordScheduledRunFailure", in), in)
		}).Maybe()
	env.SetOnChildWorkflowStartedListener(func(info *workflow.Info, _ workflow.Context, args converter.EncodedValues) {
		var in ScanSourceInput
		if err := args.Get(&in); err != nil {
			t.Errorf("child workflow input: %v", err)
		}
		f.mu.Lock()
		f.children = append(f.children, childStart{ID: info.WorkflowExecution.ID, Type: info.WorkflowType.Name, Input: in})
		f.mu.Unlock()
	})
	t.Cleanup(func() { env.AssertExpectations(t) })
	return f
}

// record logs one attempt and returns its number.
func (f *scanFixture) record(ctx context.Context, name string, in any) int32 {
	info := activity.GetInfo(ctx)
	f.mu.Lock()
	defer f.mu.Unlock()
	f.calls = append(f.calls, scanCall{Activity: name, Attempt: info.Attempt, Queue: info.TaskQueue, Input: in})
	return info.Attempt
}

// run executes wf and fails the test unless it completed; it returns the
// workflow's error.
func (f *scanFixture) run(wf any, in any) error {
	f.t.Helper()
	f.env.ExecuteWorkflow(wf, in)
	if !f.env.IsWorkflowCompleted() {
		f.t.Fatal("workflow did not complete")
	}
	return f.env.GetWorkflowError()
}

// mustSucceed runs ScanSource on scanTestRef and fails the test on an
// error.
func (f *scanFixture) mustSucceed() {
	f.t.Helper()
	if err := f.run(ScanSource, scanTestRef); err != nil {
		f.t.Fatalf("workflow error: %v, want nil", err)
	}
}

// of returns the calls of one activity, in order.
func (f *scanFixture) of(name string) []scanCall {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []scanCall
	for _, c := range f.calls {
		if c.Activity == name {
			out = append(out, c)
		}
	}
	return out
}

// sequence is the activity names called, in order, one per attempt.
func (f *scanFixture) sequence() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := make([]string, len(f.calls))
	for i, c := range f.calls {
		out[i] = c.Activity
	}
	return out
}

func (f *scanFixture) wantSequence(want ...string) {
	f.t.Helper()
	if got := f.sequence(); !reflect.DeepEqual(got, want) {
		f.t.Fatalf("activity calls =\n  %v\nwant\n  %v", got, want)
	}
}

// wantAttempts checks calls are attempts 1..n.
func (f *scanFixture) wantAttempts(calls []scanCall, n int) {
	f.t.Helper()
	if len(calls) != n {
		f.t.Fatalf("%d attempts, want %d", len(calls), n)
	}
	for i, c := range calls {
		if c.Attempt != int32(i+1) {
			f.t.Fatalf("call %d of %s is attempt %d, want %d", i, c.Activity, c.Attempt, i+1)
		}
	}
}

// finishInput is the only FinishScan input, checked to be the only call.
func (f *scanFixture) finishInput() activities.FinishScanInput {
	f.t.Helper()
	calls := f.of("FinishScan")
	if len(calls) != 1 {
		f.t.Fatalf("FinishScan called %d times, want once", len(calls))
	}
	return calls[0].Input.(activities.FinishScanInput)
}

func threeItems() []activities.ScanItem {
	return []activities.ScanItem{
		{Name: "a.csv", SizeBytes: 100, DiscoveredID: 11},
		{Name: "b.csv", SizeBytes: 200, DiscoveredID: 12},
		{Name: "c.csv", SizeBytes: 300, DiscoveredID: 13},
	}
}

func badInput(msg string) error {
	return temporal.NewNonRetryableApplicationError(msg, activities.ErrTypeBadInput, nil)
}

func sourceDeletedErr() error {
	return temporal.NewNonRetryableApplicationError("the source or the scan was deleted", activities.ErrTypeSourceDeleted, nil)
}

// TestScanSourceThreadsTheTallyAndRunsOnTheRightQueues is the control of
// the failure tests: every item succeeds, each ScanItem gets the tally the
// one before returned (starting from the plan's), the long activities run
// on the analysis queue and the bookkeeping on the default one.
func TestScanSourceThreadsTheTallyAndRunsOnTheRightQueues(t *testing.T) {
	f := newScanFixture(t)
	planTally := activities.ScanTally{Failed: 2}
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Objects: true, Items: threeItems(), Tally: planTally}, nil
	}
	f.mustSucceed()

	f.wantSequence("BeginScan", "ScanItem", "ScanItem", "ScanItem", "DetectAnomalies", "EvaluateContracts", "FinishScan")
	if got := f.of("BeginScan")[0].Input; got != scanTestRef {
		t.Fatalf("BeginScan input = %+v, want %+v", got, scanTestRef)
	}
	want := []activities.ScanItemInput{
		{Scan: scanTestRef, Item: threeItems()[0], Tally: planTally},
		{Scan: scanTestRef, Item: threeItems()[1], Tally: activities.ScanTally{Scanned: 1, Failed: 2, Rows: 10}},
		{Scan: scanTestRef, Item: threeItems()[2], Tally: activities.ScanTally{Scanned: 2, Failed: 2, Rows: 20}},
	}
	for i, c := range f.of("ScanItem") {
		if got := c.Input.(activities.ScanItemInput); got != want[i] {
			t.Errorf("ScanItem %d input = %+v, want %+v", i, got, want[i])
		}
	}
	if got, want := f.finishInput(), (activities.FinishScanInput{Scan: scanTestRef, At: scanTestStart}); got != want {
		t.Errorf("FinishScan input = %+v, want %+v", got, want)
	}
	f.mu.Lock()
	calls := append([]scanCall(nil), f.calls...)
	f.mu.Unlock()
	for _, c := range calls {
		want := scanTestQueue
		if c.Activity == "BeginScan" || c.Activity == "ScanItem" || c.Activity == "DetectAnomalies" {
			want = scanTestAnalysis
		}
		if c.Queue != want {
			t.Errorf("%s ran on queue %q, want %q", c.Activity, c.Queue, want)
		}
	}
}

// 1. A listing refused for bad input fails the scan at once with the
// activity's message: one BeginScan, no item, one FinishScan.
func TestScanSourceBeginScanBadInputFinishesWithTheReason(t *testing.T) {
	f := newScanFixture(t)
	const msg = "connect: the password was not accepted"
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{}, badInput(msg)
	}
	f.mustSucceed()

	f.wantSequence("BeginScan", "FinishScan")
	got := f.finishInput()
	const prefix = "the source could not be listed: "
	if !strings.HasPrefix(got.Error, prefix) || !strings.Contains(got.Error, msg) {
		t.Fatalf("FinishScan error = %q, want %q followed by %q", got.Error, prefix, msg)
	}
	if want := prefix + msg; got.Error != want {
		t.Fatalf("FinishScan error = %q, want exactly %q", got.Error, want)
	}
	if got.Scan != scanTestRef || !got.At.Equal(scanTestStart) {
		t.Fatalf("FinishScan input = %+v, want scan %+v at %v", got, scanTestRef, scanTestStart)
	}
}

// A bad_input listing error the activity did not itself mark final is
// still not retried: the retry policy names the type.
func TestScanSourceBeginScanBadInputTypeIsNotRetried(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{}, temporal.NewApplicationError("bucket not found", activities.ErrTypeBadInput)
	}
	f.mustSucceed()

	f.wantSequence("BeginScan", "FinishScan")
	if got, want := f.finishInput().Error, "the source could not be listed: bucket not found"; got != want {
		t.Fatalf("FinishScan error = %q, want %q", got, want)
	}
}

// A listing that fails transiently every time is tried MaximumAttempts
// times, then fails the scan with the last message.
func TestScanSourceBeginScanTransientFailureIsRetriedThenFinishes(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(attempt int32, _ activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{}, fmt.Errorf("dial tcp: connection refused (attempt %d)", attempt)
	}
	f.mustSucceed()

	f.wantAttempts(f.of("BeginScan"), int(scanRetry.MaximumAttempts))
	if len(f.of("ScanItem")) != 0 {
		t.Fatal("ScanItem ran without a plan")
	}
	want := fmt.Sprintf("the source could not be listed: dial tcp: connection refused (attempt %d)", scanRetry.MaximumAttempts)
	if got := f.finishInput().Error; got != want {
		t.Fatalf("FinishScan error = %q, want %q", got, want)
	}
}

// A listing that times out fails the scan in plain words.
func TestScanSourceBeginScanTimeoutFinishesInPlainWords(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{}, temporal.NewHeartbeatTimeoutError()
	}
	f.mustSucceed()

	f.wantAttempts(f.of("BeginScan"), int(scanRetry.MaximumAttempts))
	if got, want := f.finishInput().Error, "the source could not be listed: "+timeoutMessage; got != want {
		t.Fatalf("FinishScan error = %q, want %q", got, want)
	}
}

// 2. A source deleted before the listing ends the workflow quietly: no
// retry, no FinishScan.
func TestScanSourceBeginScanSourceDeletedEndsQuietly(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{}, sourceDeletedErr()
	}
	f.mustSucceed()

	f.wantSequence("BeginScan")
}

// 3. The second of three items fails transiently on every attempt: it is
// tried MaximumAttempts times with the same input, recorded failed (its
// discovered file left pending, the tally of the first item, the last
// message), and the third item goes on from the tally the record
// returned.
func TestScanSourceItemFailingEveryAttemptIsRecordedAndTheScanGoesOn(t *testing.T) {
	f := newScanFixture(t)
	items := threeItems()
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Objects: true, Items: items}, nil
	}
	const msg = "read tcp: connection reset by peer"
	afterFirst := activities.ScanTally{Scanned: 1, Rows: 10}
	// A tally no default would compute, so the third item's input proves
	// it came from RecordScanItemFailure.
	recorded := activities.ScanTally{Scanned: 7, Failed: 5, Rows: 99}
	f.item = func(attempt int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		switch in.Item.Name {
		case "a.csv":
			return afterFirst, nil
		case "b.csv":
			return activities.ScanTally{Scanned: 1000}, errors.New(msg)
		}
		return activities.ScanTally{Scanned: 8, Failed: 5, Rows: 109}, nil
	}
	f.recordFailure = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		if in.Tally != afterFirst {
			return in.Tally, temporal.NewNonRetryableApplicationError("unexpected tally", "test", nil)
		}
		return recorded, nil
	}
	f.mustSucceed()

	max := int(scanRetry.MaximumAttempts)
	want := []string{"BeginScan", "ScanItem"}
	for range max {
		want = append(want, "ScanItem")
	}
	want = append(want, "RecordScanItemFailure", "ScanItem", "DetectAnomalies", "EvaluateContracts", "FinishScan")
	f.wantSequence(want...)

	scanItems := f.of("ScanItem")
	second := scanItems[1 : 1+max]
	f.wantAttempts(second, max)
	for _, c := range second {
		want := activities.ScanItemInput{Scan: scanTestRef, Item: items[1], Tally: afterFirst}
		if got := c.Input.(activities.ScanItemInput); got != want {
			t.Fatalf("retry of the second item: input = %+v, want %+v", got, want)
		}
	}
	failures := f.of("RecordScanItemFailure")
	wantFailure := activities.ScanItemInput{
		Scan:  scanTestRef,
		Item:  activities.ScanItem{Name: "b.csv", SizeBytes: 200, DiscoveredID: 0},
		Tally: afterFirst,
		Error: msg,
	}
	if got := failures[0].Input.(activities.ScanItemInput); got != wantFailure {
		t.Fatalf("RecordScanItemFailure input = %+v, want %+v", got, wantFailure)
	}
	third := scanItems[len(scanItems)-1].Input.(activities.ScanItemInput)
	if want := (activities.ScanItemInput{Scan: scanTestRef, Item: items[2], Tally: recorded}); third != want {
		t.Fatalf("third item input = %+v, want %+v (the tally RecordScanItemFailure returned)", third, want)
	}
	if got := f.finishInput(); got.Error != "" || got.Scan != scanTestRef {
		t.Fatalf("FinishScan input = %+v, want the scan without an error", got)
	}
}

// 4. An item that fails for bad input is tried once and recorded failed
// with the activity's message; the scan goes on.
func TestScanSourceItemBadInputIsTriedOnceThenRecorded(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"non-retryable", badInput("object b.csv is not a data file")},
		// Retryable as sent, but of a type the retry policy names.
		{"by type", temporal.NewApplicationError("object b.csv is not a data file", activities.ErrTypeBadInput)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newScanFixture(t)
			items := threeItems()
			f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
				return activities.ScanPlan{Objects: true, Items: items}, nil
			}
			f.item = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
				if in.Item.Name == "b.csv" {
					return in.Tally, tc.err
				}
				tally := in.Tally
				tally.Scanned++
				return tally, nil
			}
			f.mustSucceed()

			f.wantSequence("BeginScan", "ScanItem", "ScanItem", "RecordScanItemFailure", "ScanItem", "DetectAnomalies", "EvaluateContracts", "FinishScan")
			f.wantAttempts(f.of("ScanItem")[1:2], 1)
			want := activities.ScanItemInput{Scan: scanTestRef, Item: activities.ScanItem{Name: "b.csv", SizeBytes: 200},
				Tally: activities.ScanTally{Scanned: 1}, Error: "object b.csv is not a data file"}
			if got := f.of("RecordScanItemFailure")[0].Input.(activities.ScanItemInput); got != want {
				t.Fatalf("RecordScanItemFailure input = %+v, want %+v", got, want)
			}
			third := f.of("ScanItem")[2].Input.(activities.ScanItemInput)
			if want := (activities.ScanTally{Scanned: 1, Failed: 1}); third.Tally != want {
				t.Fatalf("third item tally = %+v, want %+v", third.Tally, want)
			}
		})
	}
}

// 5. An item that times out, on every attempt, is recorded failed in
// plain words, not with Temporal's text.
func TestScanSourceItemTimeoutIsRecordedInPlainWords(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  func() error
	}{
		{"heartbeat", func() error { return temporal.NewHeartbeatTimeoutError() }},
		{"heartbeat with details", func() error { return temporal.NewHeartbeatTimeoutError("read 40% of b.csv") }},
		{"start to close", func() error { return temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newScanFixture(t)
			items := threeItems()
			f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
				return activities.ScanPlan{Objects: true, Items: items[:2]}, nil
			}
			f.item = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
				if in.Item.Name == "b.csv" {
					return in.Tally, tc.err()
				}
				return activities.ScanTally{Scanned: 1, Rows: 10}, nil
			}
			f.mustSucceed()

			f.wantAttempts(f.of("ScanItem")[1:], int(scanRetry.MaximumAttempts))
			failures := f.of("RecordScanItemFailure")
			if len(failures) != 1 {
				t.Fatalf("RecordScanItemFailure called %d times, want once", len(failures))
			}
			got := failures[0].Input.(activities.ScanItemInput)
			if got.Error != timeoutMessage {
				t.Fatalf("recorded error = %q, want exactly %q", got.Error, timeoutMessage)
			}
			want := activities.ScanItemInput{Scan: scanTestRef, Item: activities.ScanItem{Name: "b.csv", SizeBytes: 200},
				Tally: activities.ScanTally{Scanned: 1, Rows: 10}, Error: timeoutMessage}
			if got != want {
				t.Fatalf("RecordScanItemFailure input = %+v, want %+v", got, want)
			}
			f.finishInput()
		})
	}
}

// 6. A source deleted while an item is read ends the workflow quietly:
// the item is not retried nor recorded, the later items do not run, the
// scan is not finished.
func TestScanSourceItemSourceDeletedEndsQuietly(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Items: threeItems()}, nil
	}
	f.item = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		if in.Item.Name == "b.csv" {
			return in.Tally, sourceDeletedErr()
		}
		return activities.ScanTally{Scanned: 1}, nil
	}
	f.mustSucceed()

	f.wantSequence("BeginScan", "ScanItem", "ScanItem")
	if got := f.of("ScanItem")[1].Input.(activities.ScanItemInput).Item.Name; got != "b.csv" {
		t.Fatalf("last item read = %q, want b.csv", got)
	}
}

// 7. Recording an item's failure is retried through a database outage:
// twice failed, then recorded, and the scan goes on to its end.
func TestScanSourceRecordFailureRetriedThroughTransientErrors(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Items: threeItems()}, nil
	}
	f.item = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		if in.Item.Name == "b.csv" {
			return in.Tally, badInput("table b.csv was dropped")
		}
		tally := in.Tally
		tally.Scanned++
		return tally, nil
	}
	f.recordFailure = func(attempt int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		if attempt <= 2 {
			return in.Tally, errors.New("database is locked")
		}
		tally := in.Tally
		tally.Failed++
		return tally, nil
	}
	f.mustSucceed()

	f.wantSequence("BeginScan", "ScanItem", "ScanItem",
		"RecordScanItemFailure", "RecordScanItemFailure", "RecordScanItemFailure",
		"ScanItem", "DetectAnomalies", "EvaluateContracts", "FinishScan")
	records := f.of("RecordScanItemFailure")
	f.wantAttempts(records, 3)
	for _, c := range records {
		if got := c.Input.(activities.ScanItemInput); got.Error != "table b.csv was dropped" || got.Item.Name != "b.csv" {
			t.Fatalf("RecordScanItemFailure input = %+v", got)
		}
	}
	third := f.of("ScanItem")[2].Input.(activities.ScanItemInput)
	if want := (activities.ScanTally{Scanned: 1, Failed: 1}); third.Tally != want {
		t.Fatalf("third item tally = %+v, want %+v", third.Tally, want)
	}
}

// The bookkeeping retry outlasts the scan retry: an outage longer than
// scanRetry.MaximumAttempts attempts still ends in the failure recorded
// and the scan finished.
func TestScanSourceBookkeepingOutlastsTheScanRetry(t *testing.T) {
	f := newScanFixture(t)
	failFor := int32(scanRetry.MaximumAttempts) + 4
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Items: threeItems()[:1]}, nil
	}
	f.item = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		return in.Tally, badInput("no such table")
	}
	f.recordFailure = func(attempt int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		if attempt <= failFor {
			return in.Tally, errors.New("database is locked")
		}
		return activities.ScanTally{Failed: 1}, nil
	}
	f.finish = func(attempt int32, _ activities.FinishScanInput) error {
		if attempt <= failFor {
			return errors.New("database is locked")
		}
		return nil
	}
	f.mustSucceed()

	f.wantAttempts(f.of("RecordScanItemFailure"), int(failFor)+1)
	f.wantAttempts(f.of("FinishScan"), int(failFor)+1)
}

// A record that never succeeds fails the workflow when its retries are
// spent, and the scan is not finished. (The SDK's test environment caps
// an unlimited retry policy at 10 attempts, so the 12h schedule-to-close
// bound of the real one cannot be seen here; the count shows only that it
// is not scanRetry's.)
func TestScanSourceRecordFailureExhaustedFailsTheWorkflow(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Items: threeItems()}, nil
	}
	f.item = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		return in.Tally, badInput("no such table")
	}
	f.recordFailure = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		return in.Tally, errors.New("database is down")
	}
	err := f.run(ScanSource, scanTestRef)
	if err == nil || !strings.Contains(err.Error(), "database is down") {
		t.Fatalf("workflow error = %v, want the database's error", err)
	}
	records := f.of("RecordScanItemFailure")
	if len(records) <= int(scanRetry.MaximumAttempts) {
		t.Fatalf("RecordScanItemFailure attempted %d times, want more than %d", len(records), scanRetry.MaximumAttempts)
	}
	if n := len(f.of("ScanItem")); n != 1 {
		t.Fatalf("%d items read, want 1 (the workflow stops at the failed record)", n)
	}
	if n := len(f.of("FinishScan")); n != 0 {
		t.Fatalf("FinishScan called %d times, want 0", n)
	}
}

// A source deleted while an item's failure is recorded ends the workflow
// quietly, without FinishScan.
func TestScanSourceRecordFailureSourceDeletedEndsQuietly(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Items: threeItems()}, nil
	}
	f.item = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		return in.Tally, badInput("no such table")
	}
	f.recordFailure = func(_ int32, in activities.ScanItemInput) (activities.ScanTally, error) {
		return in.Tally, sourceDeletedErr()
	}
	f.mustSucceed()

	f.wantSequence("BeginScan", "ScanItem", "RecordScanItemFailure")
}

// 8. A source deleted before the scan is finished ends the workflow
// quietly (FinishScan is not retried).
func TestScanSourceFinishSourceDeletedEndsQuietly(t *testing.T) {
	f := newScanFixture(t)
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Items: threeItems()[:1]}, nil
	}
	f.finish = func(int32, activities.FinishScanInput) error { return sourceDeletedErr() }
	f.mustSucceed()

	f.wantSequence("BeginScan", "ScanItem", "DetectAnomalies", "EvaluateContracts", "FinishScan")
}

// Any other final FinishScan error fails the workflow.
func TestScanSourceFinishOtherFinalErrorFailsTheWorkflow(t *testing.T) {
	f := newScanFixture(t)
	f.finish = func(int32, activities.FinishScanInput) error {
		return temporal.NewNonRetryableApplicationError("constraint violated", "internal", nil)
	}
	err := f.run(ScanSource, scanTestRef)
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) || appErr.Type() != "internal" {
		t.Fatalf("workflow error = %v, want FinishScan's internal error", err)
	}
	f.wantSequence("BeginScan", "DetectAnomalies", "EvaluateContracts", "FinishScan")
}

var scheduleRef = ScheduledScanInput{OrgID: "org-1", SourceID: 7, ScheduleID: 3}

// 9a. A scheduled run refused for too few tokens records the refusal on
// the schedule, once, and starts no scan.
func TestScheduledScanBadInputRecordsTheRunFailed(t *testing.T) {
	for _, tc := range []struct {
		name string
		err  error
	}{
		{"non-retryable", badInput("too few tokens: the scan needs 120, the balance is 40")},
		{"by type", temporal.NewApplicationError("too few tokens: the scan needs 120, the balance is 40", activities.ErrTypeBadInput)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newScanFixture(t)
			f.create = func(int32, activities.ScheduleRef) (string, error) { return "", tc.err }
			if err := f.run(ScheduledScan, scheduleRef); err != nil {
				t.Fatalf("workflow error: %v, want nil", err)
			}
			f.wantSequence("CreateScheduledScan", "RecordScheduledRunFailure")
			got := f.of("CreateScheduledScan")[0].Input.(activities.ScheduleRef)
			id := got.ScanID
			if got.ScanID = ""; got != scheduleRef || !strings.HasPrefix(id, "scn_") {
				t.Fatalf("CreateScheduledScan input = %+v (scan id %q), want %+v and a scn_ id chosen by the run", got, id, scheduleRef)
			}
			want := activities.ScheduledRunFailure{Schedule: scheduleRef,
				Error: "too few tokens: the scan needs 120, the balance is 40", At: scanTestStart}
			if got := f.of("RecordScheduledRunFailure")[0].Input.(activities.ScheduledRunFailure); got != want {
				t.Fatalf("RecordScheduledRunFailure input = %+v, want %+v", got, want)
			}
			if len(f.children) != 0 {
				t.Fatalf("child workflows started: %+v", f.children)
			}
		})
	}
}

// A scheduled run whose scan cannot be created for a transient fault is
// tried MaximumAttempts times, then recorded failed with the last message.
func TestScheduledScanTransientFailureIsRetriedThenRecorded(t *testing.T) {
	f := newScanFixture(t)
	f.create = func(attempt int32, _ activities.ScheduleRef) (string, error) {
		return "", fmt.Errorf("database is locked (attempt %d)", attempt)
	}
	if err := f.run(ScheduledScan, scheduleRef); err != nil {
		t.Fatalf("workflow error: %v, want nil", err)
	}
	f.wantAttempts(f.of("CreateScheduledScan"), int(scanRetry.MaximumAttempts))
	records := f.of("RecordScheduledRunFailure")
	if len(records) != 1 {
		t.Fatalf("RecordScheduledRunFailure called %d times, want once", len(records))
	}
	want := fmt.Sprintf("database is locked (attempt %d)", scanRetry.MaximumAttempts)
	if got := records[0].Input.(activities.ScheduledRunFailure); got.Error != want || got.Schedule != scheduleRef {
		t.Fatalf("RecordScheduledRunFailure input = %+v, want error %q", got, want)
	}
	if len(f.children) != 0 {
		t.Fatalf("child workflows started: %+v", f.children)
	}
}

// 9b. A schedule whose source was deleted records nothing and ends
// quietly.
func TestScheduledScanSourceDeletedRecordsNothing(t *testing.T) {
	f := newScanFixture(t)
	f.create = func(int32, activities.ScheduleRef) (string, error) { return "", sourceDeletedErr() }
	if err := f.run(ScheduledScan, scheduleRef); err != nil {
		t.Fatalf("workflow error: %v, want nil", err)
	}
	f.wantSequence("CreateScheduledScan")
	if len(f.children) != 0 {
		t.Fatalf("child workflows started: %+v", f.children)
	}
}

// 9c. A created scan runs as a ScanSource child whose id is the scan id
// (the real child, on the mocked activities).
func TestScheduledScanRunsTheScanAsAChildNamedByTheScanID(t *testing.T) {
	f := newScanFixture(t)
	f.create = func(int32, activities.ScheduleRef) (string, error) { return "scan-42", nil }
	f.begin = func(int32, activities.ScanRef) (activities.ScanPlan, error) {
		return activities.ScanPlan{Items: threeItems()[:1]}, nil
	}
	if err := f.run(ScheduledScan, scheduleRef); err != nil {
		t.Fatalf("workflow error: %v, want nil", err)
	}
	wantRef := ScanSourceInput{OrgID: "org-1", ScanID: "scan-42"}
	if want := []childStart{{ID: "scan-42", Type: "ScanSource", Input: wantRef}}; !reflect.DeepEqual(f.children, want) {
		t.Fatalf("children = %+v, want %+v", f.children, want)
	}
	f.wantSequence("CreateScheduledScan", "BeginScan", "ScanItem", "DetectAnomalies", "EvaluateContracts", "FinishScan")
	if got := f.of("BeginScan")[0].Input; got != wantRef {
		t.Fatalf("child's BeginScan input = %+v, want %+v", got, wantRef)
	}
	if got := f.finishInput().Scan; got != wantRef {
		t.Fatalf("child's FinishScan scan = %+v, want %+v", got, wantRef)
	}
}

// The same with the child mocked (env.OnWorkflow): its input and id, and
// its failure is the run's.
func TestScheduledScanChildMockedGetsTheScanIDAndItsErrorIsReturned(t *testing.T) {
	for _, childErr := range []error{nil, errors.New("scan exploded")} {
		t.Run(fmt.Sprint(childErr), func(t *testing.T) {
			f := newScanFixture(t)
			f.create = func(int32, activities.ScheduleRef) (string, error) { return "scan-42", nil }
			wantRef := ScanSourceInput{OrgID: "org-1", ScanID: "scan-42"}
			var mu sync.Mutex
			var ids []string
			f.env.OnWorkflow(ScanSource, mock.Anything, wantRef).Return(func(ctx workflow.Context, _ ScanSourceInput) error {
				mu.Lock()
				ids = append(ids, workflow.GetInfo(ctx).WorkflowExecution.ID)
				mu.Unlock()
				return childErr
			}).Once()
			err := f.run(ScheduledScan, scheduleRef)
			if childErr == nil && err != nil {
				t.Fatalf("workflow error: %v, want nil", err)
			}
			if childErr != nil && (err == nil || !strings.Contains(err.Error(), "scan exploded")) {
				t.Fatalf("workflow error: %v, want the child's", err)
			}
			if !reflect.DeepEqual(ids, []string{"scan-42"}) {
				t.Fatalf("child ran with ids %v, want [scan-42]", ids)
			}
			f.wantSequence("CreateScheduledScan")
		})
	}
}

// TestScheduledScanTimeoutIsRecordedInPlainWords: a run whose
// CreateScheduledScan timed out is recorded in plain words, not Temporal's
// own text ("activity error (type: CreateScheduledScan, scheduledEventID:
// …"), which would be stored on the schedule and published in
// scan_failure.
func TestScheduledScanTimeoutIsRecordedInPlainWords(t *testing.T) {
	f := newScanFixture(t)
	f.create = func(int32, activities.ScheduleRef) (string, error) {
		return "", temporal.NewTimeoutError(enumspb.TIMEOUT_TYPE_START_TO_CLOSE, nil)
	}
	if err := f.run(ScheduledScan, scheduleRef); err != nil {
		t.Fatalf("workflow error: %v, want nil", err)
	}
	f.wantAttempts(f.of("CreateScheduledScan"), int(scanRetry.MaximumAttempts))
	records := f.of("RecordScheduledRunFailure")
	if len(records) != 1 {
		t.Fatalf("RecordScheduledRunFailure called %d times, want once", len(records))
	}
	if got := records[0].Input.(activities.ScheduledRunFailure).Error; got != timeoutMessage {
		t.Fatalf("recorded error = %q, want %q", got, timeoutMessage)
	}
}

// TestScheduledScanRecordRunFailureOutlastsAShortOutage:
// RecordScheduledRunFailure is bookkeeping, retried past scanRetry's four
// attempts, so a database outage of under a minute does not lose the
// record of a failed run (the schedule's last run, scan_failure).
func TestScheduledScanRecordRunFailureOutlastsAShortOutage(t *testing.T) {
	f := newScanFixture(t)
	f.create = func(int32, activities.ScheduleRef) (string, error) {
		return "", badInput("too few tokens: the scan needs 120, the balance is 40")
	}
	failFor := scanRetry.MaximumAttempts + 1
	f.recordRun = func(attempt int32, _ activities.ScheduledRunFailure) error {
		if attempt <= failFor {
			return errors.New("database is locked")
		}
		return nil
	}
	err := f.run(ScheduledScan, scheduleRef)
	if elapsed := f.env.Now().Sub(scanTestStart); elapsed > 5*time.Minute {
		t.Fatalf("outage lasted %v, want a short one", elapsed)
	}
	if err != nil {
		t.Fatalf("workflow error: %v after %d attempts, want the run recorded after the outage", err, len(f.of("RecordScheduledRunFailure")))
	}
	f.wantAttempts(f.of("RecordScheduledRunFailure"), int(failFor)+1)
}

// TestScheduledScanRecordRunFailureSourceDeletedEndsQuietly: a source
// deleted before its failed run is recorded ends the run quietly, as on
// every other path (its schedule went with it).
func TestScheduledScanRecordRunFailureSourceDeletedEndsQuietly(t *testing.T) {
	f := newScanFixture(t)
	f.create = func(int32, activities.ScheduleRef) (string, error) {
		return "", badInput("too few tokens: the scan needs 120, the balance is 40")
	}
	f.recordRun = func(int32, activities.ScheduledRunFailure) error { return sourceDeletedErr() }
	if err := f.run(ScheduledScan, scheduleRef); err != nil {
		t.Fatalf("workflow error: %v, want nil", err)
	}
	f.wantSequence("CreateScheduledScan", "RecordScheduledRunFailure")
	f.wantAttempts(f.of("RecordScheduledRunFailure"), 1)
}

// DetectAnomalies runs once every item is settled and before the scan
// ends (so a completed scan's anomalies are there), on the analysis queue,
// with the scan's reference; when it keeps failing the scan ends all the
// same, and a source deleted meanwhile ends the workflow quietly. A scan
// that could not be planned has nothing to judge.
func TestScanSourceDetectsAnomaliesBeforeFinishing(t *testing.T) {
	f := newScanFixture(t)
	f.detect = func(int32, activities.ScanRef) (activities.AnomalyTally, error) {
		return activities.AnomalyTally{}, errors.New("database is locked")
	}
	f.mustSucceed()
	detects := f.of("DetectAnomalies")
	f.wantAttempts(detects, int(scanRetry.MaximumAttempts))
	for _, c := range detects {
		if c.Queue != scanTestAnalysis || c.Input != scanTestRef {
			t.Fatalf("DetectAnomalies call = %+v, want the scan's reference on %s", c, scanTestAnalysis)
		}
	}
	if got := f.finishInput(); got.Error != "" {
		t.Fatalf("FinishScan input = %+v, want the scan ended without an error", got)
	}

	f = newScanFixture(t)
	f.detect = func(int32, activities.ScanRef) (activities.AnomalyTally, error) {
		return activities.AnomalyTally{}, sourceDeletedErr()
	}
	f.mustSucceed()
	f.wantSequence("BeginScan", "DetectAnomalies")
}

// EvaluateContracts runs after anomaly detection and before the scan
// ends, on the default queue, with the scan's reference; when it keeps
// failing the scan ends all the same, and a source deleted meanwhile ends
// the workflow quietly.
func TestScanSourceEvaluatesContractsBeforeFinishing(t *testing.T) {
	f := newScanFixture(t)
	f.contracts = func(int32, activities.ScanRef) (activities.ContractTally, error) {
		return activities.ContractTally{}, errors.New("database is locked")
	}
	f.mustSucceed()
	evals := f.of("EvaluateContracts")
	f.wantAttempts(evals, int(scanRetry.MaximumAttempts))
	for _, c := range evals {
		if c.Queue != scanTestQueue || c.Input != scanTestRef {
			t.Fatalf("EvaluateContracts call = %+v, want the scan's reference on %s", c, scanTestQueue)
		}
	}
	if got := f.finishInput(); got.Error != "" {
		t.Fatalf("FinishScan input = %+v, want the scan ended without an error", got)
	}

	f = newScanFixture(t)
	f.contracts = func(int32, activities.ScanRef) (activities.ContractTally, error) {
		return activities.ContractTally{}, sourceDeletedErr()
	}
	f.mustSucceed()
	f.wantSequence("BeginScan", "DetectAnomalies", "EvaluateContracts")
}

// TestScheduledScanRetryKeepsTheScanID: every attempt of CreateScheduledScan
// asks for the same scan id, so an attempt whose answer was lost is found
// by the next rather than refused as another scan of the source.
func TestScheduledScanRetryKeepsTheScanID(t *testing.T) {
	f := newScanFixture(t)
	f.create = func(attempt int32, in activities.ScheduleRef) (string, error) {
		if attempt < 3 {
			return "", errors.New("connection reset")
		}
		return in.ScanID, nil
	}
	f.env.OnWorkflow(ScanSource, mock.Anything, mock.Anything).Return(nil).Once()
	if err := f.run(ScheduledScan, scheduleRef); err != nil {
		t.Fatal(err)
	}
	creates := f.of("CreateScheduledScan")
	f.wantAttempts(creates, 3)
	first := creates[0].Input.(activities.ScheduleRef).ScanID
	for _, c := range creates {
		if c.Input.(activities.ScheduleRef).ScanID != first || first == "" {
			t.Fatalf("attempts asked for scan ids %v, want one id", creates)
		}
	}
}
