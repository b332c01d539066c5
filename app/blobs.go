package app

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"fmt"
	"os"
	"strings"

	"github.com/dqs/dqs/blob"
	"github.com/dqs/dqs/blob/gcs"
	"github.com/dqs/dqs/blob/local"
	"github.com/dqs/dqs/blob/s3"
	"github.com/dqs/dqs/config"
)

// blobStores are the configured blob store and, for the local driver, the
// verifier of the signed URLs the API serves itself.
type blobStores struct {
	store blob.Store
	local *local.Store
}

// newBlobStore builds the configured driver. The local driver signs its
// URLs with a key derived from the encryption key, so every replica that
// shares the encryption key accepts the others' URLs.
func newBlobStore(ctx context.Context, cfg *config.Config, encryptionKey []byte) (*blobStores, error) {
	b := cfg.Blob
	switch b.Driver {
	case "s3":
		st, err := s3.New(ctx, s3.Config{Bucket: b.Bucket, Prefix: b.Prefix, Region: b.Region, Endpoint: b.Endpoint,
			AccessKeyID: b.AccessKeyID, SecretAccessKey: b.SecretAccessKey, UsePathStyle: b.Endpoint != ""})
		if err != nil {
			return nil, fmt.Errorf("S3 blob storage: %w", err)
		}
		return &blobStores{store: st}, nil
	case "gcs":
		var creds []byte
		if b.GCSCredentialsFile != "" {
			var err error
			if creds, err = os.ReadFile(b.GCSCredentialsFile); err != nil {
				return nil, fmt.Errorf("DQS_BLOB_GCS_CREDENTIALS_FILE: %w", err)
			}
		}
		st, err := gcs.New(ctx, gcs.Config{Bucket: b.Bucket, Prefix: b.Prefix, Endpoint: b.Endpoint, CredentialsJSON: creds,
			WithoutAuthentication: strings.HasPrefix(b.Endpoint, "http://")})
		if err != nil {
			return nil, fmt.Errorf("GCS blob storage: %w", err)
		}
		return &blobStores{store: st}, nil
	default:
		mac := hmac.New(sha256.New, encryptionKey)
		mac.Write([]byte("dqs blob url signing v1"))
		st, err := local.New(b.Dir, mac.Sum(nil), strings.TrimRight(cfg.AppURL, "/"))
		if err != nil {
			return nil, fmt.Errorf("local blob storage: %w", err)
		}
		return &blobStores{store: st, local: st}, nil
	}
}
