package mailer

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// parsedMail is a message parsed back with net/mail and mime/multipart.
type parsedMail struct {
	Header      mail.Header
	Subject     string
	Text        string
	Attachments []Attachment
}

// parseMail parses raw with the standard library only, independently from
// the builder under test.
func parseMail(t *testing.T, raw []byte) parsedMail {
	t.Helper()
	msg, err := mail.ReadMessage(bytes.NewReader(raw))
	if err != nil {
		t.Fatalf("mail.ReadMessage: %v\n%s", err, raw)
	}
	var p parsedMail
	p.Header = msg.Header
	dec := new(mime.WordDecoder)
	p.Subject, err = dec.DecodeHeader(msg.Header.Get("Subject"))
	if err != nil {
		t.Fatalf("decode subject: %v", err)
	}
	if got := msg.Header.Get("MIME-Version"); got != "1.0" {
		t.Errorf("MIME-Version = %q", got)
	}
	if _, err := msg.Header.Date(); err != nil {
		t.Errorf("Date header: %v", err)
	}
	if !regexp.MustCompile(`^<[^<>@\s]+@[^<>@\s]+>$`).MatchString(msg.Header.Get("Message-ID")) {
		t.Errorf("Message-ID = %q", msg.Header.Get("Message-ID"))
	}

	mediaType, params, err := mime.ParseMediaType(msg.Header.Get("Content-Type"))
	if err != nil {
		t.Fatalf("Content-Type: %v", err)
	}
	readText := func(ct string, r io.Reader) string {
		t.Helper()
		if mt, ps, err := mime.ParseMediaType(ct); err != nil || mt != "text/plain" || !strings.EqualFold(ps["charset"], "utf-8") {
			t.Errorf("text part Content-Type = %q", ct)
		}
		b, err := io.ReadAll(r)
		if err != nil {
			t.Fatalf("read text: %v", err)
		}
		return string(b)
	}
	switch mediaType {
	case "text/plain":
		// net/mail does not decode bodies.
		switch cte := msg.Header.Get("Content-Transfer-Encoding"); cte {
		case "quoted-printable":
			p.Text = readText(msg.Header.Get("Content-Type"), quotedprintable.NewReader(msg.Body))
		case "7bit":
			p.Text = readText(msg.Header.Get("Content-Type"), msg.Body)
		default:
			t.Errorf("Content-Transfer-Encoding = %q", cte)
		}
	case "multipart/mixed":
		mr := multipart.NewReader(msg.Body, params["boundary"])
		for i := 0; ; i++ {
			part, err := mr.NextPart()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("NextPart: %v", err)
			}
			if i == 0 {
				// multipart.Reader transparently decodes quoted-printable.
				p.Text = readText(part.Header.Get("Content-Type"), part)
				continue
			}
			if cte := part.Header.Get("Content-Transfer-Encoding"); cte != "base64" {
				t.Errorf("attachment Content-Transfer-Encoding = %q", cte)
			}
			data, err := io.ReadAll(base64.NewDecoder(base64.StdEncoding, part))
			if err != nil {
				t.Fatalf("decode attachment: %v", err)
			}
			ct, _, _ := mime.ParseMediaType(part.Header.Get("Content-Type"))
			p.Attachments = append(p.Attachments, Attachment{Filename: part.FileName(), ContentType: ct, Data: data})
		}
	default:
		t.Fatalf("unexpected Content-Type %q", mediaType)
	}
	return p
}

func TestOutboxWritesParsableMessage(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "outbox", "nested")
	ob := NewOutbox(dir, "DQS <noreply@dqs.example>")

	pdf := append([]byte("%PDF-1.7\n"), bytes.Repeat([]byte{0, 1, 2, 0xff, '\r', '\n'}, 500)...)
	subject := "Rapport qualité – données ✓"
	text := "Bonjour,\n\nvotre rapport est prêt. Ligne très longue " + strings.Repeat("x", 120) + "\n=fin\n"
	err := ob.Send(context.Background(), Message{
		To:          []string{"Alice Ünicode <alice@example.com>", "bob@example.org"},
		Subject:     subject,
		Text:        text,
		Attachments: []Attachment{{Filename: "report 2024.pdf", ContentType: "application/pdf", Data: pdf}},
	})
	if err != nil {
		t.Fatalf("Send: %v", err)
	}

	st, err := os.Stat(dir)
	if err != nil {
		t.Fatal(err)
	}
	if perm := st.Mode().Perm(); perm != 0o700 {
		t.Errorf("dir perm = %o, want 700", perm)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 {
		t.Fatalf("want exactly one file (no temp leftovers), got %v", entries)
	}
	name := entries[0].Name()
	if !regexp.MustCompile(`^\d{8}T\d{6}\.\d{9}Z-[0-9a-f]{16}\.eml$`).MatchString(name) {
		t.Errorf("file name %q does not match <UTC timestamp>-<random>.eml", name)
	}
	fi, err := entries[0].Info()
	if err != nil {
		t.Fatal(err)
	}
	if perm := fi.Mode().Perm(); perm != 0o600 {
		t.Errorf("file perm = %o, want 600", perm)
	}

	raw, err := os.ReadFile(filepath.Join(dir, name))
	if err != nil {
		t.Fatal(err)
	}
	for i, line := range strings.Split(string(raw), "\r\n") {
		if strings.ContainsAny(line, "\r\n") {
			t.Fatalf("line %d has a bare CR or LF: %q", i, line)
		}
		if len(line) > 998 {
			t.Fatalf("line %d longer than 998 octets", i)
		}
	}

	p := parseMail(t, raw)
	if p.Subject != subject {
		t.Errorf("subject = %q, want %q", p.Subject, subject)
	}
	if strings.Contains(p.Header.Get("Subject"), "é") {
		t.Errorf("raw subject not RFC 2047 encoded: %q", p.Header.Get("Subject"))
	}
	from, err := p.Header.AddressList("From")
	if err != nil || len(from) != 1 || from[0].Address != "noreply@dqs.example" || from[0].Name != "DQS" {
		t.Errorf("From = %v, %v", from, err)
	}
	to, err := p.Header.AddressList("To")
	if err != nil || len(to) != 2 || to[0].Address != "alice@example.com" || to[0].Name != "Alice Ünicode" || to[1].Address != "bob@example.org" {
		t.Errorf("To = %v, %v", to, err)
	}
	wantText := strings.ReplaceAll(text, "\n", "\r\n")
	if p.Text != wantText {
		t.Errorf("body = %q, want %q", p.Text, wantText)
	}
	if len(p.Attachments) != 1 {
		t.Fatalf("attachments = %d, want 1", len(p.Attachments))
	}
	a := p.Attachments[0]
	if a.Filename != "report 2024.pdf" || a.ContentType != "application/pdf" {
		t.Errorf("attachment = %q %q", a.Filename, a.ContentType)
	}
	if !bytes.Equal(a.Data, pdf) {
		t.Errorf("attachment bytes differ (got %d bytes, want %d)", len(a.Data), len(pdf))
	}
}

func TestOutboxPlainTextOnly(t *testing.T) {
	dir := t.TempDir()
	ob := NewOutbox(dir, "noreply@dqs.example")
	for i := 0; i < 3; i++ {
		if err := ob.Send(context.Background(), Message{To: []string{"a@example.com"}, Subject: "Verify your e-mail", Text: "Code: 123456\n"}); err != nil {
			t.Fatal(err)
		}
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 3 {
		t.Fatalf("want 3 distinct files, got %d", len(entries))
	}
	raw, err := os.ReadFile(filepath.Join(dir, entries[0].Name()))
	if err != nil {
		t.Fatal(err)
	}
	p := parseMail(t, raw)
	if p.Subject != "Verify your e-mail" || p.Text != "Code: 123456\r\n" || len(p.Attachments) != 0 {
		t.Errorf("got %+v", p)
	}
}

func TestValidationRejects(t *testing.T) {
	ok := Message{To: []string{"a@example.com"}, Subject: "hi", Text: "x"}
	cases := []struct {
		name string
		from string
		mod  func(*Message)
		want error
	}{
		{"no recipients", "", func(m *Message) { m.To = nil }, errNoRecipients},
		{"subject CRLF injection", "", func(m *Message) { m.Subject = "hi\r\nBcc: victim@example.com" }, errHeaderInjection},
		{"subject LF injection", "", func(m *Message) { m.Subject = "hi\nBcc: victim@example.com" }, errHeaderInjection},
		{"subject CR injection", "", func(m *Message) { m.Subject = "hi\rBcc: victim@example.com" }, errHeaderInjection},
		{"to injection", "", func(m *Message) { m.To = []string{"a@example.com\r\nBcc: victim@example.com"} }, errHeaderInjection},
		{"attachment filename injection", "", func(m *Message) {
			m.Attachments = []Attachment{{Filename: "a.pdf\r\nX-Evil: 1", Data: []byte("x")}}
		}, errHeaderInjection},
		{"from injection", "noreply@dqs.example\r\nBcc: victim@example.com", nil, errHeaderInjection},
		{"bad to address", "", func(m *Message) { m.To = []string{"not an address"} }, errBadAddress},
		{"one bad among good", "", func(m *Message) { m.To = []string{"a@example.com", "b@"} }, errBadAddress},
		{"empty to address", "", func(m *Message) { m.To = []string{""} }, errBadAddress},
		{"bad from address", "nope", nil, errBadAddress},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			from := tc.from
			if from == "" {
				from = "noreply@dqs.example"
			}
			m := ok
			m.To = append([]string(nil), ok.To...)
			if tc.mod != nil {
				tc.mod(&m)
			}
			err := NewOutbox(dir, from).Send(context.Background(), m)
			if !errors.Is(err, tc.want) {
				t.Fatalf("err = %v, want %v", err, tc.want)
			}
			if entries, _ := os.ReadDir(dir); len(entries) != 0 {
				t.Errorf("rejected message left files: %v", entries)
			}
		})
	}
}

func TestAttachmentBadContentType(t *testing.T) {
	err := NewOutbox(t.TempDir(), "noreply@dqs.example").Send(context.Background(), Message{
		To: []string{"a@example.com"}, Subject: "x",
		Attachments: []Attachment{{Filename: "a", ContentType: "not a type;;", Data: []byte("x")}},
	})
	if err == nil {
		t.Fatal("expected error for invalid content type")
	}
}

func TestOutboxCanceledContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := NewOutbox(t.TempDir(), "noreply@dqs.example").Send(ctx, Message{To: []string{"a@example.com"}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v", err)
	}
}

func TestLongSubjectFolded(t *testing.T) {
	env, err := buildMessage("noreply@dqs.example", Message{
		To:      []string{"a@example.com"},
		Subject: strings.Repeat("Qualité des données ", 20),
	}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	p := parseMail(t, env.Data)
	if p.Subject != strings.Repeat("Qualité des données ", 20) {
		t.Errorf("subject = %q", p.Subject)
	}
	head := string(env.Data[:bytes.Index(env.Data, []byte("\r\n\r\n"))])
	i := strings.Index(head, "Subject: ")
	lines := 1
	for _, line := range strings.Split(head[i:], "\r\n")[1:] {
		if !strings.HasPrefix(line, " ") {
			break
		}
		lines++
		if len(line) > 78 {
			t.Errorf("continuation line too long (%d): %q", len(line), line)
		}
	}
	if lines < 2 {
		t.Errorf("long subject not folded")
	}
}
