package api_test

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/coder/websocket/wsjson"
	"github.com/dqs/dqs/config"
	"github.com/dqs/dqs/internal/servicetest"
	"github.com/dqs/dqs/ratelimit"
)

// TestProgressWebSocket watches a real job over a real WebSocket until the
// last message, with the token in the query string as a browser sends it.
func TestProgressWebSocket(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{})
	s := env.Register(servicetest.Unique("ws"))
	id := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"p.csv"}}).Data()["job_id"].(string)
	if r := upload(t, env, "/api/v1/jobs/"+id+"/files", s.Access, map[string]string{"p.csv": peopleCSV(2000)}); r.Status != 201 {
		t.Fatalf("upload = %d %s", r.Status, r.Raw)
	}
	wsURL := "ws" + strings.TrimPrefix(env.BaseURL, "http") + "/ws/jobs/" + id + "/progress"
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	conn, resp, err := websocket.Dial(ctx, wsURL+"?token="+s.Access, nil)
	if err != nil {
		t.Fatalf("dial: %v (%v)", err, resp)
	}
	defer conn.CloseNow()
	if resp.Header.Get("X-RateLimit-Limit") == "" {
		t.Error("no rate-limit headers on the upgrade response")
	}
	var first map[string]any
	if err := wsjson.Read(ctx, conn, &first); err != nil {
		t.Fatal(err)
	}
	if first["type"] != "progress" || first["status"] != "created" || first["job_id"] != id || len(first["files"].([]any)) != 1 {
		t.Fatalf("first message = %v", first)
	}
	env.Must(202, "POST", "/api/v1/jobs/"+id+"/start", s.Access, nil)
	var last map[string]any
	statuses := map[string]bool{}
	for {
		var m map[string]any
		if err := wsjson.Read(ctx, conn, &m); err != nil {
			if websocket.CloseStatus(err) == websocket.StatusNormalClosure {
				break
			}
			t.Fatalf("read: %v (last %v)", err, last)
		}
		statuses[m["status"].(string)] = true
		last = m
	}
	if last["type"] != "completed" || last["status"] != "completed" || last["progress"] != float64(100) {
		t.Fatalf("last message = %v", last)
	}
	f := last["files"].([]any)[0].(map[string]any)
	if f["status"] != "completed" || f["file_name"] != "p.csv" || f["progress"] != float64(100) {
		t.Fatalf("last file = %v", f)
	}
	if !statuses["completed"] {
		t.Errorf("statuses seen = %v", statuses)
	}

	// Refusals happen before the upgrade, as plain HTTP answers.
	key, _ := env.APIKey(s, "admin")
	other := env.Register(servicetest.Unique("ws-other"))
	for name, c := range map[string]struct {
		url  string
		want int
	}{
		"no token":    {wsURL, http.StatusUnauthorized},
		"bad token":   {wsURL + "?token=nope", http.StatusUnauthorized},
		"api key":     {wsURL + "?token=" + key, http.StatusForbidden},
		"other org":   {wsURL + "?token=" + other.Access, http.StatusNotFound},
		"missing job": {strings.Replace(wsURL, id, "job_aaaaaaaaaaaa", 1) + "?token=" + s.Access, http.StatusNotFound},
	} {
		_, resp, err := websocket.Dial(ctx, c.url, nil)
		if err == nil || resp == nil || resp.StatusCode != c.want {
			code := 0
			if resp != nil {
				code = resp.StatusCode
			}
			t.Errorf("%s: status %d, want %d (err %v)", name, code, c.want, err)
		}
	}
	// The header works as well as the query string.
	hdr := http.Header{"Authorization": {"Bearer " + s.Access}}
	conn2, _, err := websocket.Dial(ctx, wsURL, &websocket.DialOptions{HTTPHeader: hdr})
	if err != nil {
		t.Fatal(err)
	}
	var done map[string]any
	if err := wsjson.Read(ctx, conn2, &done); err != nil || done["type"] != "completed" {
		t.Fatalf("finished job's message = %v, %v", done, err)
	}
	conn2.CloseNow()
	// The access token in the query string never reaches the logs.
	if strings.Contains(env.Logs.String(), s.Access) {
		t.Fatal("access token from the WebSocket query string appears in the logs")
	}
}

// TestProgressWebSocketRateLimit: connections are limited per client IP.
func TestProgressWebSocketRateLimit(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) { c.Limits.WS = ratelimit.Rule{Limit: 2, Window: time.Minute} }})
	s := env.Register(servicetest.Unique("wsrl"))
	id := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"p.csv"}}).Data()["job_id"].(string)
	url := "ws" + strings.TrimPrefix(env.BaseURL, "http") + "/ws/jobs/" + id + "/progress?token=" + s.Access
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	for i := 0; i < 2; i++ {
		conn, _, err := websocket.Dial(ctx, url, nil)
		if err != nil {
			t.Fatalf("connection %d: %v", i+1, err)
		}
		conn.CloseNow()
	}
	_, resp, err := websocket.Dial(ctx, url, nil)
	if err == nil || resp == nil || resp.StatusCode != http.StatusTooManyRequests || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("third connection: %v %v", resp, err)
	}
}

// TestProgressWebSocketLifetime: at the end of its lifetime a connection
// closes with 1001 (going away) and a reason, not by dropping.
func TestProgressWebSocketLifetime(t *testing.T) {
	env := servicetest.Start(t, servicetest.Options{Configure: func(c *config.Config) { c.WSLifetime = time.Second }})
	s := env.Register(servicetest.Unique("wslife"))
	id := env.Must(201, "POST", "/api/v1/jobs", s.Access, map[string]any{"filenames": []string{"p.csv"}}).Data()["job_id"].(string)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	conn, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(env.BaseURL, "http")+"/ws/jobs/"+id+"/progress?token="+s.Access, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.CloseNow()
	for {
		var m map[string]any
		err := wsjson.Read(ctx, conn, &m)
		if err == nil {
			continue
		}
		if websocket.CloseStatus(err) != websocket.StatusGoingAway {
			t.Fatalf("connection ended with %v, want close status 1001", err)
		}
		return
	}
}
