package reports

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"time"

	"github.com/gowebpki/jcs"
)

// CertificateVersion names the certificate's layout; it is hashed with
// the rest, so a later layout never verifies as this one.
const CertificateVersion = "dqs-ai-readiness-certificate/1"

// CertificateDocument is the AI readiness certificate as issued. Every
// field below is hashed: the verification hash is the SHA-256 (hex) of
// the RFC 8785 canonical JSON of exactly these fields, the hash itself
// left out. A third party recomputes it from the certificate the
// verification endpoint or the share link returns: drop
// verification_hash, canonicalise with any JCS library, hash.
type CertificateDocument struct {
	Version       string `json:"version"`
	CertificateID string `json:"certificate_id"`
	ReportID      string `json:"report_id"`
	Organization  string `json:"organization"`
	// Score is the overall AI readiness score, one decimal; Grade its
	// letter; Certified whether it meets the certification bar.
	Score     float64 `json:"score"`
	Grade     string  `json:"grade"`
	Certified bool    `json:"certified"`
	// Dimensions are the seven dimension scores by key.
	Dimensions map[string]float64 `json:"dimensions"`
	// Datasets is how many datasets the assessment covered.
	Datasets int `json:"datasets"`
	// IssuedAt is RFC 3339 UTC to the second.
	IssuedAt string `json:"issued_at"`
}

// NewCertificate is the certificate of an assessment.
func NewCertificate(id, reportID, organization string, a Assessment, issuedAt time.Time) CertificateDocument {
	dims := make(map[string]float64, len(a.Dimensions))
	for _, d := range a.Dimensions {
		dims[d.Key] = d.Score
	}
	return CertificateDocument{Version: CertificateVersion, CertificateID: id, ReportID: reportID, Organization: organization,
		Score: a.Score, Grade: a.Grade, Certified: a.Certified, Dimensions: dims, Datasets: len(a.Datasets),
		IssuedAt: issuedAt.UTC().Truncate(time.Second).Format(time.RFC3339)}
}

// Canonical returns the document's RFC 8785 canonical JSON and its
// verification hash.
func (d CertificateDocument) Canonical() (canonical []byte, hash string, err error) {
	raw, err := json.Marshal(d)
	if err != nil {
		return nil, "", err
	}
	canonical, err = jcs.Transform(raw)
	if err != nil {
		return nil, "", err
	}
	sum := sha256.Sum256(canonical)
	return canonical, hex.EncodeToString(sum[:]), nil
}
