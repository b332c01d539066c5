// Package mailer sends e-mail for the data quality service.
//
// Two transports implement [Mailer]:
//
//   - [Outbox] writes every message as an RFC 5322 .eml file into a
//     directory (the single-machine default, useful in development and for
//     deployments without an SMTP relay);
//   - [SMTP] submits messages to an SMTP server (plain, STARTTLS or
//     implicit TLS, optional AUTH PLAIN).
//
// Both share the same MIME builder, so a message looks identical whether it
// is written to disk or sent over the wire.
package mailer

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"mime"
	"mime/multipart"
	"mime/quotedprintable"
	"net/mail"
	"net/textproto"
	"path"
	"strings"
	"time"
)

// Attachment is a file attached to a [Message].
type Attachment struct {
	Filename    string
	ContentType string // e.g. "application/pdf"; defaults to application/octet-stream
	Data        []byte
}

// Message is an e-mail to send. The sender is configured on the transport.
type Message struct {
	To          []string
	Subject     string
	Text        string // plain-text body
	Attachments []Attachment
}

// Mailer sends messages.
type Mailer interface {
	Send(ctx context.Context, m Message) error
}

var (
	errNoRecipients    = errors.New("mailer: message has no recipients")
	errHeaderInjection = errors.New("mailer: header value contains CR or LF")
	errBadAddress      = errors.New("mailer: invalid address")
)

// envelope is a fully rendered message plus the SMTP envelope addresses.
type envelope struct {
	From string   // bare address for MAIL FROM
	To   []string // bare addresses for RCPT TO
	Data []byte   // RFC 5322 message with CRLF line endings
}

// checkHeader rejects values that could inject additional header lines.
func checkHeader(field, v string) error {
	if strings.ContainsAny(v, "\r\n\x00") {
		return fmt.Errorf("%w: %s", errHeaderInjection, field)
	}
	return nil
}

func parseAddress(field, v string) (*mail.Address, error) {
	if err := checkHeader(field, v); err != nil {
		return nil, err
	}
	a, err := mail.ParseAddress(v)
	if err != nil {
		return nil, fmt.Errorf("%w: %s %q: %v", errBadAddress, field, v, err)
	}
	return a, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b) // crypto/rand.Read never returns an error
	return hex.EncodeToString(b)
}

// buildMessage validates m and renders it as an RFC 5322 / MIME message.
// It is the single message builder shared by every transport.
func buildMessage(from string, m Message, now time.Time) (*envelope, error) {
	fromAddr, err := parseAddress("From", from)
	if err != nil {
		return nil, err
	}
	if len(m.To) == 0 {
		return nil, errNoRecipients
	}
	env := &envelope{From: fromAddr.Address}
	toHeader := make([]string, 0, len(m.To))
	for _, t := range m.To {
		a, err := parseAddress("To", t)
		if err != nil {
			return nil, err
		}
		env.To = append(env.To, a.Address)
		toHeader = append(toHeader, a.String())
	}
	if err := checkHeader("Subject", m.Subject); err != nil {
		return nil, err
	}

	var parts []attachmentPart
	for i, at := range m.Attachments {
		p, err := prepareAttachment(at)
		if err != nil {
			return nil, fmt.Errorf("mailer: attachment %d: %w", i, err)
		}
		parts = append(parts, p)
	}

	domain := "localhost"
	if i := strings.LastIndexByte(fromAddr.Address, '@'); i >= 0 && i+1 < len(fromAddr.Address) {
		domain = fromAddr.Address[i+1:]
	}

	var buf bytes.Buffer
	writeHeader(&buf, "From", fromAddr.String())
	writeHeader(&buf, "To", strings.Join(toHeader, ",\r\n "))
	writeHeader(&buf, "Subject", encodeSubject(m.Subject))
	writeHeader(&buf, "Date", now.Format(time.RFC1123Z))
	writeHeader(&buf, "Message-ID", "<"+now.UTC().Format("20060102150405")+"."+randomHex(12)+"@"+domain+">")
	writeHeader(&buf, "MIME-Version", "1.0")

	if len(parts) == 0 {
		writeHeader(&buf, "Content-Type", "text/plain; charset=utf-8")
		writeHeader(&buf, "Content-Transfer-Encoding", textEncoding(m.Text))
		buf.WriteString("\r\n")
		if err := writeText(&buf, m.Text); err != nil {
			return nil, err
		}
		env.Data = buf.Bytes()
		return env, nil
	}

	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	writeHeader(&buf, "Content-Type", mime.FormatMediaType("multipart/mixed", map[string]string{"boundary": mw.Boundary()}))
	buf.WriteString("\r\nThis is a multi-part message in MIME format.\r\n")

	tw, err := mw.CreatePart(textproto.MIMEHeader{
		"Content-Type":              {"text/plain; charset=utf-8"},
		"Content-Transfer-Encoding": {textEncoding(m.Text)},
	})
	if err != nil {
		return nil, err
	}
	if err := writeText(tw, m.Text); err != nil {
		return nil, err
	}
	for _, p := range parts {
		pw, err := mw.CreatePart(textproto.MIMEHeader{
			"Content-Type":              {p.contentType},
			"Content-Disposition":       {p.disposition},
			"Content-Transfer-Encoding": {"base64"},
		})
		if err != nil {
			return nil, err
		}
		if err := writeBase64(pw, p.data); err != nil {
			return nil, err
		}
	}
	if err := mw.Close(); err != nil {
		return nil, err
	}
	buf.Write(body.Bytes())
	env.Data = buf.Bytes()
	return env, nil
}

type attachmentPart struct {
	contentType string
	disposition string
	data        []byte
}

func prepareAttachment(at Attachment) (attachmentPart, error) {
	if err := checkHeader("Filename", at.Filename); err != nil {
		return attachmentPart{}, err
	}
	if err := checkHeader("Content-Type", at.ContentType); err != nil {
		return attachmentPart{}, err
	}
	// Never leak a directory structure to the recipient.
	name := path.Base(strings.ReplaceAll(at.Filename, "\\", "/"))
	if name == "." || name == "/" || name == "" {
		name = "attachment"
	}
	ct := at.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	mediaType, params, err := mime.ParseMediaType(ct)
	if err != nil {
		return attachmentPart{}, fmt.Errorf("invalid content type %q: %w", ct, err)
	}
	if strings.HasPrefix(mediaType, "multipart/") {
		return attachmentPart{}, fmt.Errorf("invalid content type %q: multipart not allowed", ct)
	}
	params["name"] = name
	ctHeader := mime.FormatMediaType(mediaType, params)
	cd := mime.FormatMediaType("attachment", map[string]string{"filename": name})
	if ctHeader == "" || cd == "" {
		return attachmentPart{}, fmt.Errorf("cannot encode content type %q / filename %q", ct, name)
	}
	return attachmentPart{contentType: ctHeader, disposition: cd, data: at.Data}, nil
}

func writeHeader(buf *bytes.Buffer, key, value string) {
	buf.WriteString(key)
	buf.WriteString(": ")
	buf.WriteString(value)
	buf.WriteString("\r\n")
}

// encodeSubject applies RFC 2047 encoding when needed and folds the
// resulting encoded-words onto continuation lines.
func encodeSubject(s string) string {
	enc := mime.QEncoding.Encode("utf-8", s)
	if enc == s {
		return s
	}
	return strings.ReplaceAll(enc, "?= =?", "?=\r\n =?")
}

// textEncoding picks the body's transfer encoding: plain 7bit when the text
// is ASCII with short lines, so links and tokens stay readable (and
// copyable) in a raw .eml file; quoted-printable otherwise.
func textEncoding(text string) string {
	for _, line := range strings.Split(text, "\n") {
		if len(line) > 900 {
			return "quoted-printable"
		}
		for i := 0; i < len(line); i++ {
			if c := line[i]; c >= 0x80 || (c < 0x20 && c != '\t' && c != '\r') {
				return "quoted-printable"
			}
		}
	}
	return "7bit"
}

// writeText writes the body in the encoding textEncoding chose.
func writeText(w io.Writer, text string) error {
	if textEncoding(text) == "quoted-printable" {
		return writeQP(w, text)
	}
	text = strings.ReplaceAll(strings.ReplaceAll(text, "\r\n", "\n"), "\n", "\r\n")
	_, err := io.WriteString(w, text)
	return err
}

// writeQP writes text as quoted-printable with CRLF line endings.
func writeQP(w io.Writer, text string) error {
	qp := quotedprintable.NewWriter(w)
	if _, err := qp.Write([]byte(text)); err != nil {
		return err
	}
	return qp.Close()
}

// writeBase64 writes data as base64 in 76-character lines.
func writeBase64(w io.Writer, data []byte) error {
	const lineLen = 76
	enc := base64.StdEncoding.EncodeToString(data)
	var b strings.Builder
	b.Grow(len(enc) + len(enc)/lineLen*2 + 2)
	for len(enc) > lineLen {
		b.WriteString(enc[:lineLen])
		b.WriteString("\r\n")
		enc = enc[lineLen:]
	}
	if enc != "" {
		b.WriteString(enc)
		b.WriteString("\r\n")
	}
	_, err := w.Write([]byte(b.String()))
	return err
}
