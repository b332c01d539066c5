package emulators_test

import (
	"io"
	"net/http"
	"net/smtp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/internal/emulators"
)

// fetch GETs u and returns its status and body.
func fetch(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(b)
}

// put stores body under an organisation's key and returns the key.
func put(t *testing.T, s blob.Store, body string) string {
	t.Helper()
	key, _ := blob.OrgKey("acme", "f.txt")
	if _, err := s.Put(t.Context(), key, strings.NewReader(body), "text/plain"); err != nil {
		t.Fatal(err)
	}
	return key
}

func TestS3ServesPresignedURLs(t *testing.T) {
	e := emulators.StartS3(t)
	s := e.Store(t, "p")
	key := put(t, s, "hello")
	if _, err := e.Backend.HeadObject(emulators.Bucket, "p/"+key); err != nil {
		t.Fatalf("object not in the backend under the prefix: %v", err)
	}
	u, err := s.SignedURL(t.Context(), key, time.Minute, "f.txt")
	if err != nil {
		t.Fatal(err)
	}
	if code, body := fetch(t, u); code != http.StatusOK || body != "hello" {
		t.Errorf("GET presigned = %d %q", code, body)
	}
}

// TestGCSServeSignedURLs: the path-style signed URLs of a store on the
// emulator are answered only with ServeSignedURLs.
func TestGCSServeSignedURLs(t *testing.T) {
	for _, serve := range []bool{false, true} {
		t.Run(strconv.FormatBool(serve), func(t *testing.T) {
			e := emulators.StartGCS(t, emulators.GCSOptions{ServeSignedURLs: serve})
			s := e.Store(t, "p")
			key := put(t, s, "hello")
			if _, err := e.Server.GetObject(emulators.Bucket, "p/"+key); err != nil {
				t.Fatalf("object not in the emulator under the prefix: %v", err)
			}
			u, err := s.SignedURL(t.Context(), key, time.Minute, "f.txt")
			if err != nil {
				t.Fatal(err)
			}
			if !strings.HasPrefix(u, e.URL()+"/"+emulators.Bucket+"/p/") {
				t.Errorf("signed URL %q not path style on %s", u, e.URL())
			}
			code, body := fetch(t, u)
			switch {
			case serve && (code != http.StatusOK || body != "hello"):
				t.Errorf("GET signed = %d %q, want 200 hello", code, body)
			case !serve && code != http.StatusNotFound:
				t.Errorf("GET signed = %d, want 404 without ServeSignedURLs", code)
			}
		})
	}
}

func TestSMTPRecordsMessagesAndChecksAuth(t *testing.T) {
	srv := emulators.StartSMTP(t, emulators.SMTPOptions{Username: "u", Password: "pw", RequireAuth: true, AllowInsecureAuth: true})
	addr := srv.Host + ":" + strconv.Itoa(srv.Port)
	send := func(pass string) error {
		c, err := smtp.Dial(addr)
		if err != nil {
			return err
		}
		defer c.Close()
		// net/smtp sends PLAIN over plaintext only to a loopback host.
		if err := c.Auth(smtp.PlainAuth("", "u", pass, srv.Host)); err != nil {
			return err
		}
		if err := c.Mail("a@example.com"); err != nil {
			return err
		}
		for _, r := range []string{"b@example.com", "c@example.com"} {
			if err := c.Rcpt(r); err != nil {
				return err
			}
		}
		w, err := c.Data()
		if err != nil {
			return err
		}
		if _, err := io.WriteString(w, "Subject: hi\r\n\r\nbody\r\n"); err != nil {
			return err
		}
		if err := w.Close(); err != nil {
			return err
		}
		return c.Quit()
	}
	if err := send("wrong"); err == nil {
		t.Fatal("AUTH with a wrong password succeeded")
	}
	if n := len(srv.Messages()); n != 0 {
		t.Fatalf("%d messages after a refused AUTH", n)
	}
	if err := send("pw"); err != nil {
		t.Fatal(err)
	}
	msgs := srv.Messages()
	if len(msgs) != 1 {
		t.Fatalf("%d messages, want 1", len(msgs))
	}
	m := msgs[0]
	if m.From != "a@example.com" || strings.Join(m.Rcpts, ",") != "b@example.com,c@example.com" || m.User != "u" || m.TLS ||
		!strings.Contains(string(m.Data), "Subject: hi") {
		t.Errorf("recorded %+v", m)
	}
}
