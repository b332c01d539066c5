package workflows

import (
	"context"
	"errors"
	"reflect"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/mock"
	"go.temporal.io/sdk/temporal"
	"go.temporal.io/sdk/testsuite"

	"github.com/dqs/dqs/activities"
)

func newEnv(t *testing.T) (*testsuite.TestWorkflowEnvironment, *activities.Activities) {
	t.Helper()
	var s testsuite.WorkflowTestSuite
	env := s.NewTestWorkflowEnvironment()
	a := &activities.Activities{}
	env.RegisterActivity(a)
	t.Cleanup(func() { env.AssertExpectations(t) })
	return env, a
}

func TestSendVerificationEmailCallsActivity(t *testing.T) {
	env, a := newEnv(t)
	in := VerificationEmailInput{OrgID: "org-1", UserID: "user-1"}
	var calls atomic.Int32
	env.OnActivity(a.SendVerificationEmail, mock.Anything, in).Return(func(_ context.Context, got activities.VerificationEmailInput) error {
		calls.Add(1)
		if got != in {
			t.Errorf("activity input = %+v, want %+v", got, in)
		}
		return nil
	}).Once()

	env.ExecuteWorkflow(SendVerificationEmail, in)

	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	if got := calls.Load(); got != 1 {
		t.Fatalf("activity calls = %d, want 1", got)
	}
}

func TestSendVerificationEmailRetriesTransientError(t *testing.T) {
	env, a := newEnv(t)
	in := VerificationEmailInput{OrgID: "org-1", UserID: "user-1"}
	var calls atomic.Int32
	env.OnActivity(a.SendVerificationEmail, mock.Anything, in).Return(func(context.Context, activities.VerificationEmailInput) error {
		if calls.Add(1) <= 2 {
			return errors.New("smtp: 421 service not available")
		}
		return nil
	})

	env.ExecuteWorkflow(SendVerificationEmail, in)

	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v, want success after retries", err)
	}
	if got := calls.Load(); got != 3 {
		t.Fatalf("activity calls = %d, want 3 (two failures, one success)", got)
	}
}

func TestSendVerificationEmailStopsOnNonRetryableError(t *testing.T) {
	env, a := newEnv(t)
	in := VerificationEmailInput{OrgID: "org-1", UserID: "gone"}
	var calls atomic.Int32
	env.OnActivity(a.SendVerificationEmail, mock.Anything, in).Return(func(context.Context, activities.VerificationEmailInput) error {
		calls.Add(1)
		return temporal.NewNonRetryableApplicationError("user no longer exists", "user_not_found", nil)
	})

	env.ExecuteWorkflow(SendVerificationEmail, in)

	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	err := env.GetWorkflowError()
	if err == nil {
		t.Fatal("workflow succeeded, want the activity's error")
	}
	var appErr *temporal.ApplicationError
	if !errors.As(err, &appErr) {
		t.Fatalf("workflow error %v (%T) carries no ApplicationError", err, err)
	}
	if appErr.Type() != "user_not_found" || !appErr.NonRetryable() {
		t.Fatalf("application error type=%q nonRetryable=%v, want user_not_found, true", appErr.Type(), appErr.NonRetryable())
	}
	var actErr *temporal.ActivityError
	if !errors.As(err, &actErr) {
		t.Errorf("workflow error %v does not come from the activity", err)
	}
	if got := calls.Load(); got != 1 {
		t.Fatalf("activity calls = %d, want 1 (no retry)", got)
	}
}

func TestSendVerificationEmailRetryPolicyIsBounded(t *testing.T) {
	if emailRetry.MaximumAttempts <= 1 {
		t.Fatalf("MaximumAttempts = %d, want retries", emailRetry.MaximumAttempts)
	}
	env, a := newEnv(t)
	in := VerificationEmailInput{OrgID: "org-1", UserID: "user-1"}
	var calls atomic.Int32
	env.OnActivity(a.SendVerificationEmail, mock.Anything, in).Return(func(context.Context, activities.VerificationEmailInput) error {
		calls.Add(1)
		return errors.New("smtp down")
	})

	env.ExecuteWorkflow(SendVerificationEmail, in)

	if env.GetWorkflowError() == nil {
		t.Fatal("workflow succeeded with a mail server that never answers")
	}
	if got := calls.Load(); got != emailRetry.MaximumAttempts {
		t.Fatalf("activity calls = %d, want MaximumAttempts %d", got, emailRetry.MaximumAttempts)
	}
}

func TestPurgeExpiredCredentialsReturnsCount(t *testing.T) {
	env, a := newEnv(t)
	env.OnActivity(a.PurgeExpiredCredentials, mock.Anything).Return(int64(42), nil).Once()

	env.ExecuteWorkflow(PurgeExpiredCredentials)

	if !env.IsWorkflowCompleted() {
		t.Fatal("workflow did not complete")
	}
	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var n int64
	if err := env.GetWorkflowResult(&n); err != nil {
		t.Fatalf("result: %v", err)
	}
	if n != 42 {
		t.Fatalf("result = %d, want 42", n)
	}
}

func TestPurgeExpiredCredentialsRetriesThenReturnsCount(t *testing.T) {
	env, a := newEnv(t)
	var calls atomic.Int32
	env.OnActivity(a.PurgeExpiredCredentials, mock.Anything).Return(func(context.Context) (int64, error) {
		if calls.Add(1) == 1 {
			return 0, errors.New("database is locked")
		}
		return 3, nil
	})

	env.ExecuteWorkflow(PurgeExpiredCredentials)

	if err := env.GetWorkflowError(); err != nil {
		t.Fatalf("workflow error: %v", err)
	}
	var n int64
	if err := env.GetWorkflowResult(&n); err != nil {
		t.Fatal(err)
	}
	if n != 3 || calls.Load() != 2 {
		t.Fatalf("result = %d after %d calls, want 3 after 2", n, calls.Load())
	}
}

func TestVerificationEmailWorkflowID(t *testing.T) {
	if got := VerificationEmailWorkflowID("u1"); got != "verify-email-u1" {
		t.Fatalf("id = %q", got)
	}
	if VerificationEmailWorkflowID("a") == VerificationEmailWorkflowID("b") {
		t.Fatal("two users share a workflow id")
	}
}

func TestNamesFor(t *testing.T) {
	if DefaultPrefix != "dqs" {
		t.Fatalf("DefaultPrefix = %q, want dqs", DefaultPrefix)
	}
	if got, want := NamesFor(""), NamesFor("dqs"); got != want {
		t.Fatalf("NamesFor(\"\") = %+v, want the default prefix's %+v", got, want)
	}
	def := NamesFor("")
	if def.Default != "dqs-default" || def.PurgeSchedule != "dqs-purge-expired-credentials" || def.RetentionSchedule != "dqs-retention-sweep" {
		t.Fatalf("default names = %+v", def)
	}

	a, b := NamesFor("ci-run-7"), NamesFor("other")
	if a.Default != "ci-run-7-default" || a.PurgeSchedule != "ci-run-7-purge-expired-credentials" {
		t.Fatalf("names = %+v", a)
	}
	if a.Default == b.Default || a.PurgeSchedule == b.PurgeSchedule {
		t.Fatalf("prefixes %+v and %+v share names", a, b)
	}
	if a.RetentionSchedule == b.RetentionSchedule || a.RetentionSchedule == a.PurgeSchedule {
		t.Fatalf("retention schedule names collide: %+v, %+v", a, b)
	}
	if a.Default == a.PurgeSchedule {
		t.Fatalf("queue and schedule share a name: %+v", a)
	}
}

func TestTaskQueuesListDefaultAndAnalysis(t *testing.T) {
	for _, prefix := range []string{"", "x"} {
		n := NamesFor(prefix)
		if got := n.TaskQueues(); !reflect.DeepEqual(got, []string{n.Default, n.Analysis}) {
			t.Fatalf("TaskQueues(%q) = %v, want [%s %s]", prefix, got, n.Default, n.Analysis)
		}
	}
}

// TestAnalysisQueueBesideDefault: a workflow finds its analysis queue from
// the default queue it runs on; that must be the queue analysis workers
// poll, for every prefix (even one that itself ends in -default).
func TestAnalysisQueueBesideDefault(t *testing.T) {
	for _, prefix := range []string{"", "ci-run-7", "a-default", "x_y"} {
		n := NamesFor(prefix)
		if got := analysisQueueOf(n.Default); got != n.Analysis {
			t.Errorf("prefix %q: analysis queue beside %s = %s, want %s", prefix, n.Default, got, n.Analysis)
		}
		if n.Analysis == n.Default || n.Analysis == n.PurgeSchedule || n.Analysis == n.RetentionSchedule {
			t.Errorf("prefix %q: analysis queue collides: %+v", prefix, n)
		}
	}
	if got := NamesFor("ci-run-7").Analysis; got != "ci-run-7-analysis" {
		t.Fatalf("analysis queue = %q, want ci-run-7-analysis", got)
	}
}
