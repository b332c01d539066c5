package models

import (
	"fmt"

	"gorm.io/gorm"
)

// Indexes of users.email after migrateEmailPerOrganization.
const (
	// userOrgEmailIndex makes an address unique within an organisation;
	// Users.Create recognises its violation as a conflict.
	userOrgEmailIndex = "idx_users_org_email"
	// userEmailLookupIndex serves login, which looks an address up across
	// organisations.
	userEmailLookupIndex = "idx_users_email_lookup"
)

// migrateEmailPerOrganization replaces the service-wide unique index on
// users.email by a unique index on (org_id, email): one person may hold
// accounts in several organisations, and a sign-up or an admin adding a
// user no longer learns whether an address has an account elsewhere.
// Addresses are stored normalised (trimmed, lower-cased; see
// NormalizeEmail) and always compared in that form, so the index is on the
// column itself. Every existing row stays valid: addresses were unique
// across organisations, so they are unique within each.
func migrateEmailPerOrganization(tx *gorm.DB) error {
	for _, stmt := range []string{
		"DROP INDEX idx_users_email",
		"CREATE UNIQUE INDEX " + userOrgEmailIndex + " ON users (org_id, email)",
		"CREATE INDEX " + userEmailLookupIndex + " ON users (email)",
	} {
		if err := tx.Exec(stmt).Error; err != nil {
			return fmt.Errorf("users e-mail per organisation: %w", err)
		}
	}
	return nil
}
