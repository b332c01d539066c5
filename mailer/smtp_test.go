package mailer

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"io"
	"net"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-smtp"

	"github.com/dqs/dqs/internal/emulators"
)

const (
	testUser = "dqs-mailer"
	testPass = "s3cr3t-P@ssw0rd!"
)

// startServer runs a real SMTP server that accepts testUser/testPass for
// AUTH PLAIN, configured further by opts.
func startServer(t *testing.T, opts emulators.SMTPOptions) *emulators.SMTPServer {
	t.Helper()
	opts.Username, opts.Password = testUser, testPass
	return emulators.StartSMTP(t, opts)
}

func testMessage() Message {
	return Message{
		To:      []string{"Alice <alice@example.com>", "bob@example.org"},
		Subject: "Vérification de votre adresse",
		Text:    "Votre code : 424242\n.\nUne ligne avec un point seul ci-dessus.\n",
		Attachments: []Attachment{{
			Filename:    "report.pdf",
			ContentType: "application/pdf",
			Data:        bytes.Repeat([]byte("%PDF\x00\xff"), 1000),
		}},
	}
}

func checkReceived(t *testing.T, be *emulators.SMTPServer, want Message) emulators.SMTPMessage {
	t.Helper()
	msgs := be.Messages()
	if len(msgs) != 1 {
		t.Fatalf("server received %d messages, want 1", len(msgs))
	}
	got := msgs[0]
	if got.From != "noreply@dqs.example" {
		t.Errorf("MAIL FROM = %q", got.From)
	}
	if strings.Join(got.Rcpts, ",") != "alice@example.com,bob@example.org" {
		t.Errorf("RCPT TO = %v", got.Rcpts)
	}
	p := parseMail(t, got.Data)
	if p.Subject != want.Subject {
		t.Errorf("subject = %q, want %q", p.Subject, want.Subject)
	}
	// Line endings may arrive as CRLF or LF (the SMTP DATA reader normalises them).
	if got := strings.ReplaceAll(p.Text, "\r\n", "\n"); got != want.Text {
		t.Errorf("body = %q, want %q", got, want.Text)
	}
	if len(p.Attachments) != len(want.Attachments) {
		t.Fatalf("attachments = %d, want %d", len(p.Attachments), len(want.Attachments))
	}
	for i := range want.Attachments {
		if p.Attachments[i].Filename != want.Attachments[i].Filename || !bytes.Equal(p.Attachments[i].Data, want.Attachments[i].Data) {
			t.Errorf("attachment %d mismatch", i)
		}
	}
	return got
}

func TestSMTPPlainWithAuth(t *testing.T) {
	be := startServer(t, emulators.SMTPOptions{RequireAuth: true, AllowInsecureAuth: true})
	port := be.Port

	m := NewSMTP(SMTPConfig{
		Host: "127.0.0.1", Port: port, TLS: "none",
		Username: testUser, Password: testPass,
		From:    "DQS <noreply@dqs.example>",
		Timeout: 10 * time.Second,
	})
	want := testMessage()
	if err := m.Send(context.Background(), want); err != nil {
		t.Fatalf("Send: %v", err)
	}
	got := checkReceived(t, be, want)
	if got.User != testUser {
		t.Errorf("authenticated user = %q, want %q", got.User, testUser)
	}
	if got.TLS {
		t.Errorf("expected a plaintext session")
	}
}

func TestSMTPNoAuthWhenNoUsername(t *testing.T) {
	// AUTH is not offered on plaintext connections (AllowInsecureAuth is
	// false), so any AUTH attempt would fail the send.
	be := startServer(t, emulators.SMTPOptions{})
	port := be.Port
	m := NewSMTP(SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "none", From: "noreply@dqs.example"})
	want := testMessage()
	want.Attachments = nil
	if err := m.Send(context.Background(), want); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if got := checkReceived(t, be, want); got.User != "" {
		t.Errorf("unexpected authentication as %q", got.User)
	}
}

func TestSMTPStartTLS(t *testing.T) {
	// AllowInsecureAuth stays false: AUTH only succeeds after STARTTLS.
	be := startServer(t, emulators.SMTPOptions{RequireAuth: true, StartTLS: emulators.SelfSignedTLS(t)})
	port := be.Port

	m := NewSMTP(SMTPConfig{
		Host: "127.0.0.1", Port: port, // TLS empty => starttls
		Username: testUser, Password: testPass,
		From:               "noreply@dqs.example",
		InsecureSkipVerify: true,
		Timeout:            10 * time.Second,
	})
	want := testMessage()
	if err := m.Send(context.Background(), want); err != nil {
		t.Fatalf("Send: %v", err)
	}
	got := checkReceived(t, be, want)
	if got.User != testUser {
		t.Errorf("authenticated user = %q", got.User)
	}

	// Without InsecureSkipVerify the self-signed certificate is rejected.
	strict := NewSMTP(SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "starttls", From: "noreply@dqs.example", Username: testUser, Password: testPass, Timeout: 10 * time.Second})
	err := strict.Send(context.Background(), want)
	var certErr *tls.CertificateVerificationError
	if !errors.As(err, &certErr) {
		t.Fatalf("want certificate verification error, got %v", err)
	}
	if strings.Contains(err.Error(), testPass) {
		t.Errorf("error leaks password: %v", err)
	}
	if n := len(be.Messages()); n != 1 {
		t.Errorf("server has %d messages after failed send, want 1", n)
	}
}

func TestSMTPStartTLSNotOffered(t *testing.T) {
	be := startServer(t, emulators.SMTPOptions{}) // no StartTLS => no STARTTLS
	port := be.Port
	m := NewSMTP(SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "starttls", From: "noreply@dqs.example", InsecureSkipVerify: true})
	if err := m.Send(context.Background(), testMessage()); err == nil {
		t.Fatal("expected failure instead of silent downgrade to plaintext")
	}
	if n := len(be.Messages()); n != 0 {
		t.Errorf("message delivered without TLS")
	}
}

func TestSMTPImplicitTLS(t *testing.T) {
	be := startServer(t, emulators.SMTPOptions{RequireAuth: true, ImplicitTLS: emulators.SelfSignedTLS(t)})
	port := be.Port
	m := NewSMTP(SMTPConfig{
		Host: "127.0.0.1", Port: port, TLS: "tls",
		Username: testUser, Password: testPass,
		From: "noreply@dqs.example", InsecureSkipVerify: true, Timeout: 10 * time.Second,
	})
	want := testMessage()
	if err := m.Send(context.Background(), want); err != nil {
		t.Fatalf("Send: %v", err)
	}
	checkReceived(t, be, want)
}

func TestSMTPWrongPasswordNotLeaked(t *testing.T) {
	be := startServer(t, emulators.SMTPOptions{RequireAuth: true, AllowInsecureAuth: true})
	port := be.Port

	const wrong = "Wr0ng-Pa55-7f3a9c"
	m := NewSMTP(SMTPConfig{
		Host: "127.0.0.1", Port: port, TLS: "none",
		Username: testUser, Password: wrong,
		From: "noreply@dqs.example", Timeout: 10 * time.Second,
	})
	err := m.Send(context.Background(), testMessage())
	if err == nil {
		t.Fatal("expected authentication failure")
	}
	msg := err.Error()
	for _, secret := range []string{
		wrong,
		base64.StdEncoding.EncodeToString([]byte(wrong)),
		base64.StdEncoding.EncodeToString([]byte("\x00" + testUser + "\x00" + wrong)),
	} {
		if strings.Contains(msg, secret) {
			t.Fatalf("error leaks password (%q): %s", secret, msg)
		}
	}
	var smtpErr *smtp.SMTPError
	if !errors.As(err, &smtpErr) || smtpErr.Code != 535 {
		t.Errorf("want SMTP 535 error, got %v", err)
	}
	if n := len(be.Messages()); n != 0 {
		t.Errorf("message delivered despite failed auth")
	}
}

func TestSMTPRedactsEchoedPassword(t *testing.T) {
	s := NewSMTP(SMTPConfig{Username: "u", Password: "hunter2"})
	plain := base64.StdEncoding.EncodeToString([]byte("\x00u\x00hunter2"))
	err := s.redact(errors.New("server said: bad AUTH PLAIN " + plain + " for hunter2"))
	if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), plain) {
		t.Fatalf("not redacted: %v", err)
	}
}

func TestSMTPHonoursContextDeadline(t *testing.T) {
	// A TCP server that accepts connections but never sends a greeting.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { _ = ln.Close(); wg.Wait() })
	wg.Add(1)
	go func() {
		defer wg.Done()
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			wg.Add(1)
			go func() { defer wg.Done(); _, _ = io.Copy(io.Discard, c); _ = c.Close() }()
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port

	m := NewSMTP(SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "none", From: "noreply@dqs.example", Username: testUser, Password: testPass})
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	err = m.Send(ctx, testMessage())
	if err == nil {
		t.Fatal("expected timeout error")
	}
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("want context.DeadlineExceeded, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Send took %v despite 300ms deadline", d)
	}

	// Config Timeout applies when the context has no deadline.
	m = NewSMTP(SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "none", From: "noreply@dqs.example", Timeout: 200 * time.Millisecond})
	start = time.Now()
	if err := m.Send(context.Background(), testMessage()); err == nil {
		t.Fatal("expected timeout error")
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Send took %v despite 200ms Timeout", d)
	}

	// Cancellation (no deadline involved) also aborts promptly.
	ctx, cancel = context.WithCancel(context.Background())
	time.AfterFunc(200*time.Millisecond, cancel)
	m = NewSMTP(SMTPConfig{Host: "127.0.0.1", Port: port, TLS: "none", From: "noreply@dqs.example", Timeout: time.Minute})
	start = time.Now()
	if err := m.Send(ctx, testMessage()); !errors.Is(err, context.Canceled) {
		t.Errorf("want context.Canceled, got %v", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Send took %v despite cancellation", d)
	}
}

func TestSMTPConfigErrors(t *testing.T) {
	msg := Message{To: []string{"a@example.com"}}
	if err := NewSMTP(SMTPConfig{Host: "127.0.0.1", TLS: "ssl3", From: "a@b.c"}).Send(context.Background(), msg); err == nil {
		t.Error("unknown TLS mode accepted")
	}
	if err := NewSMTP(SMTPConfig{From: "a@b.c"}).Send(context.Background(), msg); err == nil {
		t.Error("missing host accepted")
	}
	// Validation happens before any network activity.
	if err := NewSMTP(SMTPConfig{Host: "127.0.0.1", Port: 1, From: "a@b.c"}).Send(context.Background(), Message{To: []string{"x\r\nBcc: y@z"}}); !errors.Is(err, errHeaderInjection) {
		t.Errorf("want header injection error, got %v", err)
	}
	for mode, port := range map[string]int{"none": 25, "": 587, "starttls": 587, "tls": 465} {
		if got := NewSMTP(SMTPConfig{TLS: mode}).cfg.Port; got != port {
			t.Errorf("default port for %q = %d, want %d", mode, got, port)
		}
	}
	if got := NewSMTP(SMTPConfig{}).cfg.Timeout; got != 30*time.Second {
		t.Errorf("default timeout = %v", got)
	}
}
