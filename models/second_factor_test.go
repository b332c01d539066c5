package models_test

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/dqs/dqs/errs"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// sameError reports whether err is want itself: the ErrChallenge* errors
// share a status and code, so errors.Is cannot tell them apart.
func sameError(err, want error) bool { return err == want }

// newChallenge records a temp_token of a new user and returns both.
func newChallenge(t *testing.T, s *models.Stores, now time.Time) (*models.User, string) {
	t.Helper()
	org := newOrg(t, s, "A")
	u := newUser(t, s, org.ID, "two@example.com", models.RoleAdmin)
	id := models.NewID()
	if err := s.SecondFactor.CreateChallenge(context.Background(), org.ID, u.ID, id, now.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	return u, id
}

// TestChallengeAllowsFiveCodes: a temp_token allows five codes; the sixth
// is refused as exhausted, and an exhausted token cannot be exchanged.
func TestChallengeAllowsFiveCodes(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		now := testNow()
		u, id := newChallenge(t, s, now)
		for i := 1; i <= models.ChallengeMaxCodes; i++ {
			n, err := s.SecondFactor.TryChallenge(ctx, u.OrgID, u.ID, id, now)
			if err != nil || n != i {
				t.Fatalf("code %d: TryChallenge = %d, %v; want %d", i, n, err, i)
			}
		}
		_, err := s.SecondFactor.TryChallenge(ctx, u.OrgID, u.ID, id, now)
		if !sameError(err, models.ErrChallengeExhausted) {
			t.Fatalf("code %d: TryChallenge = %v, want exhausted", models.ChallengeMaxCodes+1, err)
		}
		wantErr(t, err, errs.ErrUnauthorized)
	})
}

// TestChallengeRefusals: an unknown, foreign, expired or exchanged
// temp_token is refused, each with its reason.
func TestChallengeRefusals(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		now := testNow()
		u, id := newChallenge(t, s, now)
		other := newOrg(t, s, "B")
		for _, tc := range []struct {
			name             string
			org, user, token string
			at               time.Time
			want             error
		}{
			{"unknown token", u.OrgID, u.ID, models.NewID(), now, models.ErrChallengeInvalid},
			{"other organisation", other.ID, u.ID, id, now, models.ErrChallengeInvalid},
			{"other user", u.OrgID, models.NewID(), id, now, models.ErrChallengeInvalid},
			{"expired", u.OrgID, u.ID, id, now.Add(5 * time.Minute), models.ErrChallengeInvalid},
		} {
			if _, err := s.SecondFactor.TryChallenge(ctx, tc.org, tc.user, tc.token, tc.at); !sameError(err, tc.want) {
				t.Errorf("%s: TryChallenge = %v, want %v", tc.name, err, tc.want)
			}
		}
		if _, err := s.SecondFactor.TryChallenge(ctx, u.OrgID, u.ID, id, now); err != nil {
			t.Fatal(err)
		}
		if err := s.SecondFactor.ConsumeChallenge(ctx, other.ID, id, now); !sameError(err, models.ErrChallengeUsed) {
			t.Fatalf("ConsumeChallenge of another organisation = %v, want refused", err)
		}
		if err := s.SecondFactor.ConsumeChallenge(ctx, u.OrgID, id, now); err != nil {
			t.Fatal(err)
		}
		if _, err := s.SecondFactor.TryChallenge(ctx, u.OrgID, u.ID, id, now); !sameError(err, models.ErrChallengeUsed) {
			t.Fatalf("TryChallenge after the exchange = %v, want used", err)
		}
		if err := s.SecondFactor.ConsumeChallenge(ctx, u.OrgID, id, now); !sameError(err, models.ErrChallengeUsed) {
			t.Fatalf("second ConsumeChallenge = %v, want used", err)
		}
	})
}

// TestChallengeConsumedOnceUnderRace: of concurrent exchanges of one
// temp_token exactly one succeeds, and of concurrent codes no more than
// five are counted.
func TestChallengeConsumedOnceUnderRace(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		now := testNow()
		u, id := newChallenge(t, s, now)
		const n = 12
		var wg sync.WaitGroup
		tried := make(chan error, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.SecondFactor.TryChallenge(ctx, u.OrgID, u.ID, id, now)
				tried <- err
			}()
		}
		wg.Wait()
		close(tried)
		allowed := 0
		for err := range tried {
			switch {
			case err == nil:
				allowed++
			case !sameError(err, models.ErrChallengeExhausted):
				t.Fatalf("TryChallenge = %v", err)
			}
		}
		if allowed != models.ChallengeMaxCodes {
			t.Fatalf("%d concurrent codes were allowed, want %d", allowed, models.ChallengeMaxCodes)
		}

		_, id2 := newChallengeFor(t, s, u, now)
		consumed := make(chan error, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				consumed <- s.SecondFactor.ConsumeChallenge(ctx, u.OrgID, id2, now)
			}()
		}
		wg.Wait()
		close(consumed)
		won := 0
		for err := range consumed {
			switch {
			case err == nil:
				won++
			case !sameError(err, models.ErrChallengeUsed):
				t.Fatalf("ConsumeChallenge = %v", err)
			}
		}
		if won != 1 {
			t.Fatalf("%d concurrent exchanges of one temp_token succeeded, want 1", won)
		}
	})
}

func newChallengeFor(t *testing.T, s *models.Stores, u *models.User, now time.Time) (*models.User, string) {
	t.Helper()
	id := models.NewID()
	if err := s.SecondFactor.CreateChallenge(context.Background(), u.OrgID, u.ID, id, now.Add(5*time.Minute)); err != nil {
		t.Fatal(err)
	}
	return u, id
}

// failCodes records n wrong codes of u at at.
func failCodes(t *testing.T, s *models.Stores, u *models.User, n int, at time.Time) *time.Time {
	t.Helper()
	var locked *time.Time
	for range n {
		id, err := s.SecondFactor.BeginAttempt(context.Background(), u.OrgID, u.ID, at)
		if err != nil {
			t.Fatalf("BeginAttempt: %v", err)
		}
		if locked, err = s.SecondFactor.FailAttempt(context.Background(), u.OrgID, u.ID, id, at); err != nil {
			t.Fatalf("FailAttempt: %v", err)
		}
	}
	return locked
}

func wantLocked(t *testing.T, err error, until time.Time) {
	t.Helper()
	var le *models.LockedError
	if !errors.As(err, &le) {
		t.Fatalf("err = %v, want locked until %s", err, until)
	}
	if !le.Until.Equal(until) {
		t.Fatalf("locked until %s, want %s", le.Until, until)
	}
}

// TestUserFailureLimitLocksForFifteenMinutes: the tenth wrong code within
// fifteen minutes locks the user's second factor for fifteen minutes;
// right codes do not count; another user is not affected.
func TestUserFailureLimitLocksForFifteenMinutes(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		t0 := testNow()
		org := newOrg(t, s, "A")
		u := newUser(t, s, org.ID, "u@example.com", models.RoleAdmin)
		bystander := newUser(t, s, org.ID, "b@example.com", models.RoleMember)

		// Right codes are forgotten.
		for range 20 {
			id, err := s.SecondFactor.BeginAttempt(ctx, u.OrgID, u.ID, t0)
			if err != nil {
				t.Fatal(err)
			}
			if err := s.SecondFactor.ForgetAttempt(ctx, u.OrgID, id); err != nil {
				t.Fatal(err)
			}
		}
		if locked := failCodes(t, s, u, models.UserMaxFailures-1, t0); locked != nil {
			t.Fatalf("%d wrong codes locked the user until %s", models.UserMaxFailures-1, locked)
		}
		trip := t0.Add(10 * time.Minute)
		locked := failCodes(t, s, u, 1, trip)
		if locked == nil || !locked.Equal(trip.Add(models.UserLockout)) {
			t.Fatalf("the tenth wrong code: locked until %v, want %s", locked, trip.Add(models.UserLockout))
		}
		for _, at := range []time.Time{trip, trip.Add(time.Minute), trip.Add(models.UserLockout - time.Second)} {
			_, err := s.SecondFactor.BeginAttempt(ctx, u.OrgID, u.ID, at)
			wantLocked(t, err, trip.Add(models.UserLockout))
		}
		if _, err := s.SecondFactor.BeginAttempt(ctx, bystander.OrgID, bystander.ID, trip); err != nil {
			t.Fatalf("another user of the organisation: BeginAttempt = %v", err)
		}
		// When the lock ends, the failures that caused it no longer count.
		after := trip.Add(models.UserLockout)
		if locked := failCodes(t, s, u, models.UserMaxFailures-1, after); locked != nil {
			t.Fatalf("after the lock, %d wrong codes locked again until %s", models.UserMaxFailures-1, locked)
		}
	})
}

// TestUserFailureLimitSlidesOverFifteenMinutes: wrong codes older than the
// window do not count.
func TestUserFailureLimitSlidesOverFifteenMinutes(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		s := models.NewStores(db)
		t0 := testNow()
		org := newOrg(t, s, "A")
		u := newUser(t, s, org.ID, "u@example.com", models.RoleAdmin)
		failCodes(t, s, u, models.UserMaxFailures-1, t0)
		if locked := failCodes(t, s, u, models.UserMaxFailures-1, t0.Add(models.UserFailureWindow)); locked != nil {
			t.Fatalf("wrong codes of two windows were counted together: locked until %s", locked)
		}
	})
}

// TestUserFailureLimitHoldsUnderConcurrency: of concurrent codes of one
// user, no more than the limit are let through to be checked.
func TestUserFailureLimitHoldsUnderConcurrency(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		now := testNow()
		org := newOrg(t, s, "A")
		u := newUser(t, s, org.ID, "u@example.com", models.RoleAdmin)
		const n = 25
		var wg sync.WaitGroup
		results := make(chan error, n)
		for range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				_, err := s.SecondFactor.BeginAttempt(ctx, u.OrgID, u.ID, now)
				results <- err
			}()
		}
		wg.Wait()
		close(results)
		begun := 0
		for err := range results {
			var le *models.LockedError
			switch {
			case err == nil:
				begun++
			case !errors.As(err, &le):
				t.Fatalf("BeginAttempt = %v", err)
			}
		}
		if begun != models.UserMaxFailures {
			t.Fatalf("%d concurrent codes were let through, want %d", begun, models.UserMaxFailures)
		}
	})
}

// TestPurgeRemovesSecondFactorState: the maintenance sweep deletes expired
// temp_tokens and attempts that no longer count, and keeps a lock that
// still holds.
func TestPurgeRemovesSecondFactorState(t *testing.T) {
	modelstest.Each(t, func(t *testing.T, db *models.DB) {
		ctx := context.Background()
		s := models.NewStores(db)
		long := testNow().Add(-48 * time.Hour)
		u, _ := newChallenge(t, s, long) // expired long ago
		failCodes(t, s, u, 3, long)
		_, live := newChallengeFor(t, s, u, testNow())
		n, err := s.RefreshTokens.PurgeExpired(ctx, testNow().Add(-time.Hour))
		if err != nil || n != 4 {
			t.Fatalf("PurgeExpired = %d, %v; want 4 (one temp_token, three attempts)", n, err)
		}
		if _, err := s.SecondFactor.TryChallenge(ctx, u.OrgID, u.ID, live, testNow()); err != nil {
			t.Fatalf("the live temp_token was purged: %v", err)
		}
	})
}
