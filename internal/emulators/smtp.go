package emulators

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"io"
	"math/big"
	"net"
	"sync"
	"testing"
	"time"

	"github.com/emersion/go-sasl"
	"github.com/emersion/go-smtp"
)

// SMTPMessage is one message the server accepted.
type SMTPMessage struct {
	From  string   // MAIL FROM
	Rcpts []string // RCPT TO, in order
	Data  []byte   // the message as sent after DATA
	TLS   bool     // the session was over TLS (implicit or STARTTLS)
	User  string   // the user authenticated with AUTH PLAIN, or ""
}

// SMTPOptions configures StartSMTP. The zero value is a plaintext server
// that offers no STARTTLS and no AUTH, and accepts every message.
type SMTPOptions struct {
	// Username and Password are the only credentials AUTH PLAIN accepts
	// (when Username is empty, every AUTH fails with 535).
	Username, Password string
	// RequireAuth refuses MAIL FROM before a successful AUTH.
	RequireAuth bool
	// AllowInsecureAuth offers AUTH on plaintext connections; otherwise
	// AUTH is only offered over TLS.
	AllowInsecureAuth bool
	// StartTLS offers STARTTLS with this configuration.
	StartTLS *tls.Config
	// ImplicitTLS makes the listener itself speak TLS (SMTPS).
	ImplicitTLS *tls.Config
}

// SMTPServer is a running SMTP server (github.com/emersion/go-smtp) on
// 127.0.0.1 that records the messages it accepts.
type SMTPServer struct {
	Host string // 127.0.0.1
	Port int

	opts SMTPOptions
	mu   sync.Mutex
	msgs []SMTPMessage
}

// StartSMTP runs a real SMTP server on 127.0.0.1 at a free port, stopped
// when the test ends.
func StartSMTP(t testing.TB, opts SMTPOptions) *SMTPServer {
	t.Helper()
	s := &SMTPServer{Host: "127.0.0.1", opts: opts}
	srv := smtp.NewServer(smtpBackend{s})
	srv.Domain = "localhost"
	srv.ReadTimeout = 10 * time.Second
	srv.WriteTimeout = 10 * time.Second
	srv.MaxMessageBytes = 10 << 20
	srv.AllowInsecureAuth = opts.AllowInsecureAuth
	srv.TLSConfig = opts.StartTLS
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Port = ln.Addr().(*net.TCPAddr).Port
	if opts.ImplicitTLS != nil {
		ln = tls.NewListener(ln, opts.ImplicitTLS)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		_ = srv.Serve(ln)
	}()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return s
}

// Messages returns the messages accepted so far, oldest first.
func (s *SMTPServer) Messages() []SMTPMessage {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]SMTPMessage(nil), s.msgs...)
}

// smtpBackend starts the server's sessions.
type smtpBackend struct{ srv *SMTPServer }

func (b smtpBackend) NewSession(c *smtp.Conn) (smtp.Session, error) {
	_, isTLS := c.TLSConnectionState()
	return &smtpSession{srv: b.srv, tls: isTLS}, nil
}

type smtpSession struct {
	srv  *SMTPServer
	tls  bool
	user string
	cur  SMTPMessage
}

var _ smtp.AuthSession = (*smtpSession)(nil)

func (s *smtpSession) AuthMechanisms() []string { return []string{sasl.Plain} }

func (s *smtpSession) Auth(mech string) (sasl.Server, error) {
	return sasl.NewPlainServer(func(identity, username, password string) error {
		o := s.srv.opts
		if o.Username == "" || username != o.Username || password != o.Password {
			return smtp.ErrAuthFailed
		}
		s.user = username
		return nil
	}), nil
}

func (s *smtpSession) Mail(from string, _ *smtp.MailOptions) error {
	if s.srv.opts.RequireAuth && s.user == "" {
		return smtp.ErrAuthRequired
	}
	s.cur = SMTPMessage{From: from, TLS: s.tls, User: s.user}
	return nil
}

func (s *smtpSession) Rcpt(to string, _ *smtp.RcptOptions) error {
	s.cur.Rcpts = append(s.cur.Rcpts, to)
	return nil
}

func (s *smtpSession) Data(r io.Reader) error {
	b, err := io.ReadAll(r)
	if err != nil {
		return err
	}
	s.cur.Data = b
	s.srv.mu.Lock()
	s.srv.msgs = append(s.srv.msgs, s.cur)
	s.srv.mu.Unlock()
	return nil
}

func (s *smtpSession) Reset()        { s.cur = SMTPMessage{} }
func (s *smtpSession) Logout() error { return nil }

// SelfSignedTLS returns a server TLS configuration with a throw-away
// certificate for 127.0.0.1 and localhost; clients must skip verification.
func SelfSignedTLS(t testing.TB) *tls.Config {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(time.Now().UnixNano()),
		Subject:               pkix.Name{CommonName: "localhost"},
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageKeyEncipherment,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		DNSNames:              []string{"localhost"},
		IPAddresses:           []net.IP{net.ParseIP("127.0.0.1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	return &tls.Config{
		Certificates: []tls.Certificate{{Certificate: [][]byte{der}, PrivateKey: key}},
		MinVersion:   tls.VersionTLS12,
	}
}
