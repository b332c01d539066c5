package mailer

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/base64"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// SMTPConfig configures the [SMTP] transport.
type SMTPConfig struct {
	Host     string
	Port     int // default: 25 for "none", 587 for "starttls", 465 for "tls"
	Username string
	Password string
	From     string

	// TLS selects transport security: "none", "starttls" (default when
	// empty; fails if the server does not offer STARTTLS) or "tls"
	// (implicit TLS, a.k.a. SMTPS).
	TLS string

	// InsecureSkipVerify disables certificate verification. Only for tests
	// against self-signed servers.
	InsecureSkipVerify bool

	// Timeout bounds dialing plus the whole SMTP conversation (default
	// 30s). A deadline on the context passed to Send applies as well.
	Timeout time.Duration
}

// SMTP is a [Mailer] that submits messages to an SMTP server. A new
// connection is used for every message. AUTH PLAIN is performed only when
// Username is set; note that with TLS "none" the credentials travel in clear
// text. Errors never contain the password.
//
// An SMTP is safe for concurrent use.
type SMTP struct {
	cfg SMTPConfig
}

var _ Mailer = (*SMTP)(nil)

const defaultSMTPTimeout = 30 * time.Second

// NewSMTP returns an SMTP transport for cfg, filling in defaults.
func NewSMTP(cfg SMTPConfig) *SMTP {
	cfg.TLS = strings.ToLower(strings.TrimSpace(cfg.TLS))
	if cfg.TLS == "" {
		cfg.TLS = "starttls"
	}
	if cfg.Port == 0 {
		switch cfg.TLS {
		case "none":
			cfg.Port = 25
		case "tls":
			cfg.Port = 465
		default:
			cfg.Port = 587
		}
	}
	if cfg.Timeout <= 0 {
		cfg.Timeout = defaultSMTPTimeout
	}
	return &SMTP{cfg: cfg}
}

// Send renders m and submits it to the configured server.
func (s *SMTP) Send(ctx context.Context, m Message) error {
	cfg := s.cfg
	switch cfg.TLS {
	case "none", "starttls", "tls":
	default:
		return fmt.Errorf("mailer: smtp: unsupported TLS mode %q (want none, starttls or tls)", cfg.TLS)
	}
	if cfg.Host == "" {
		return errors.New("mailer: smtp: host not configured")
	}
	env, err := buildMessage(cfg.From, m, time.Now())
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}

	addr := net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.Port))
	ctx, cancel := context.WithTimeout(ctx, cfg.Timeout)
	defer cancel()

	err = s.send(ctx, addr, env)
	if err == nil {
		return nil
	}
	ctxErr := ctx.Err()
	if ctxErr == nil {
		// The connection deadline equals the context deadline, so an I/O
		// timeout may be observed just before the context's own timer fires.
		var ne net.Error
		if deadline, _ := ctx.Deadline(); errors.As(err, &ne) && ne.Timeout() && !time.Now().Before(deadline) {
			ctxErr = context.DeadlineExceeded
		}
	}
	if ctxErr != nil && !errors.Is(err, ctxErr) {
		err = fmt.Errorf("%w: %w", ctxErr, err)
	}
	return s.redact(fmt.Errorf("mailer: smtp %s: %w", addr, err))
}

func (s *SMTP) send(ctx context.Context, addr string, env *envelope) error {
	cfg := s.cfg
	var d net.Dialer
	raw, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer raw.Close()
	// Abort any blocked I/O as soon as the context ends (cancellation
	// without a deadline included).
	stop := context.AfterFunc(ctx, func() { _ = raw.Close() })
	defer stop()

	deadline, _ := ctx.Deadline() // always set: Send uses WithTimeout
	conn := &deadlineConn{Conn: raw, deadline: deadline}
	if err := conn.SetDeadline(deadline); err != nil {
		return err
	}

	tlsCfg := &tls.Config{
		ServerName:         cfg.Host,
		InsecureSkipVerify: cfg.InsecureSkipVerify, //nolint:gosec // opt-in, tests only
		MinVersion:         tls.VersionTLS12,
	}

	var c *smtp.Client
	switch cfg.TLS {
	case "tls":
		tc := tls.Client(conn, tlsCfg)
		if err := tc.HandshakeContext(ctx); err != nil {
			return fmt.Errorf("tls handshake: %w", err)
		}
		c = smtp.NewClient(tc)
	case "starttls":
		c, err = smtp.NewClientStartTLS(conn, tlsCfg)
		if err != nil {
			return fmt.Errorf("starttls: %w", err)
		}
	default:
		c = smtp.NewClient(conn)
	}
	defer c.Close()

	if cfg.Username != "" {
		if !c.SupportsAuth(sasl.Plain) {
			if err := c.Noop(); err != nil { // surface greeting/EHLO errors
				return err
			}
			return errors.New("server does not offer AUTH PLAIN")
		}
		if err := c.Auth(sasl.NewPlainClient("", cfg.Username, cfg.Password)); err != nil {
			return fmt.Errorf("auth: %w", err)
		}
	}
	if err := c.SendMail(env.From, env.To, bytes.NewReader(env.Data)); err != nil {
		return err
	}
	// The message has been accepted; a failing QUIT must not make the
	// caller retry (and deliver twice).
	_ = c.Quit()
	return nil
}

// redact makes sure no form of the password appears in an error message.
func (s *SMTP) redact(err error) error {
	pw := s.cfg.Password
	if pw == "" {
		return err
	}
	secrets := []string{
		pw,
		base64.StdEncoding.EncodeToString([]byte(pw)),
		base64.StdEncoding.EncodeToString([]byte("\x00" + s.cfg.Username + "\x00" + pw)),
	}
	msg := err.Error()
	changed := false
	for _, sec := range secrets {
		if strings.Contains(msg, sec) {
			msg = strings.ReplaceAll(msg, sec, "[REDACTED]")
			changed = true
		}
	}
	if !changed {
		return err
	}
	// Deliberately not wrapping: the original error would leak the secret.
	return errors.New(msg)
}

// deadlineConn caps every deadline at an overall deadline. go-smtp sets
// and clears per-command deadlines itself; clamping keeps the overall
// send deadline in force throughout (including while streaming DATA).
type deadlineConn struct {
	net.Conn
	deadline time.Time
}

func (c *deadlineConn) clamp(t time.Time) time.Time {
	if t.IsZero() || t.After(c.deadline) {
		return c.deadline
	}
	return t
}

func (c *deadlineConn) SetDeadline(t time.Time) error { return c.Conn.SetDeadline(c.clamp(t)) }
func (c *deadlineConn) SetReadDeadline(t time.Time) error {
	return c.Conn.SetReadDeadline(c.clamp(t))
}
func (c *deadlineConn) SetWriteDeadline(t time.Time) error {
	return c.Conn.SetWriteDeadline(c.clamp(t))
}
