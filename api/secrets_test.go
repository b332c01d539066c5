package api_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/workflows"
	"go.temporal.io/api/enums/v1"
)

// TestSecretsNeverLogged runs a full flow with debug logging on, collects
// every secret it handled, and searches the logs, the error bodies and the
// Temporal workflow history for each of them.
func TestSecretsNeverLogged(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	email := servicetest.Unique("sec")
	s := env.Register(email)
	secrets := map[string]string{
		"password":       s.Password,
		"access token":   s.Access,
		"refresh token":  s.Refresh,
		"JWT key":        env.Config.JWTSecret,
		"encryption key": env.Config.EncryptionKey,
	}
	mail := env.WaitForMail(email, 30*time.Second)
	verify := tokenInMail.FindStringSubmatch(mail)[1]
	secrets["verification token"] = verify
	env.Must(200, "POST", "/api/v1/auth/verify-email", "", map[string]any{"token": verify})

	// Error paths that carry secrets in their input.
	var errorBodies []string
	collect := func(r *servicetest.Response) { errorBodies = append(errorBodies, string(r.Raw)) }
	collect(env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": s.Password + "x"}))
	collect(env.Do("POST", "/api/v1/auth/login", "", `{"email":"`+email+`","password":"`+s.Password+`"`))
	collect(env.Do("POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": s.Password, "extra": s.Password}))
	secrets["wrong password"] = s.Password + "x"

	setup := env.Must(200, "POST", "/api/v1/auth/totp/setup", s.Access, nil).Data()
	seed := setup["secret"].(string)
	secrets["TOTP seed"] = seed
	env.Must(200, "POST", "/api/v1/auth/totp/enable", s.Access, map[string]any{"code": totpCode(t, seed, time.Now().Add(-30*time.Second))})
	temp := env.Must(200, "POST", "/api/v1/auth/login", "", map[string]any{"email": email, "password": s.Password}).Data()["temp_token"].(string)
	secrets["temp token"] = temp
	collect(env.Do("POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": temp, "code": "123456"}))
	tok := env.Must(200, "POST", "/api/v1/auth/totp/complete", "", map[string]any{"temp_token": temp, "code": totpCode(t, seed, time.Now())}).Data()
	secrets["second access token"] = tok["access_token"].(string)
	secrets["second refresh token"] = tok["refresh_token"].(string)
	refreshed := env.Must(200, "POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": tok["refresh_token"]}).Data()
	secrets["rotated refresh token"] = refreshed["refresh_token"].(string)
	collect(env.Do("POST", "/api/v1/auth/refresh", "", map[string]any{"refresh_token": tok["refresh_token"]}))

	key, _ := env.APIKey(s, "admin")
	secrets["API key"] = key
	env.Must(200, "GET", "/api/v1/audit", key, nil)
	collect(env.Do("GET", "/api/v1/audit", key+"x", nil))
	collect(env.Do("GET", "/api/v1/auth/me", key, nil))
	env.Must(201, "POST", "/api/v1/users", s.Access, map[string]any{"email": servicetest.Unique("m"), "password": "member password 1", "role": "member"})
	secrets["member password"] = "member password 1"
	env.FlushAudit()
	auditRaw := string(env.Must(200, "GET", "/api/v1/audit?limit=200", s.Access, nil).Raw)

	// The verification workflow's history holds ids only.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	iter := env.App.Temporal.GetWorkflowHistory(ctx, workflows.VerificationEmailWorkflowID(s.UserID), "", false, enums.HISTORY_EVENT_FILTER_TYPE_ALL_EVENT)
	var history strings.Builder
	for iter.HasNext() {
		ev, err := iter.Next()
		if err != nil {
			t.Fatalf("workflow history: %v", err)
		}
		history.WriteString(ev.String())
	}
	if history.Len() == 0 {
		t.Fatal("no workflow history read")
	}

	logs := env.Logs.String()
	if !strings.Contains(logs, `"route":"/api/v1/auth/login"`) {
		t.Fatalf("logs were not captured: %.500s", logs)
	}
	places := map[string]string{"logs": logs, "error bodies": strings.Join(errorBodies, "\n"), "audit log": auditRaw, "workflow history": history.String()}
	for name, secret := range secrets {
		if len(secret) < 6 {
			t.Fatalf("secret %s too short to search for", name)
		}
		for where, text := range places {
			if strings.Contains(text, secret) {
				t.Errorf("%s appears in the %s", name, where)
			}
		}
	}
}
