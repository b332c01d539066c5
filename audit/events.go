// Package audit records the organisation-scoped, append-only audit log.
// Entries are written asynchronously and in batches, best effort: recording
// never blocks or fails the audited action.
package audit

// Event codes of SPEC.md "Audit events", plus the sources' creation, update and deletion.
const (
	Login          = "login"
	Logout         = "logout"
	LoginFailed    = "login_failed"
	Register       = "register"
	EmailVerified  = "email_verified"
	TwoFAEnabled   = "2fa_enabled"
	TwoFADisabled  = "2fa_disabled"
	TwoFALocked    = "2fa_locked"
	FileUploaded   = "file_uploaded"
	FileRejectedPw = "file_rejected_raw_password"
	JobCreated     = "job_created"
	JobStarted     = "job_started"
	JobCompleted   = "job_completed"
	FilesDeleted   = "files_deleted"
	FilesExpiring  = "files_expiring"
	GDPRCheckOff   = "gdpr_check_disabled"
	CreditsAdded   = "credits_added"
	APIKeyCreated  = "api_key_created"
	APIKeyRevoked  = "api_key_revoked"
	APIKeyUsed     = "api_key_used"
	SourceCreated  = "source_created"
	SourceUpdated  = "source_updated"
	SourceDeleted  = "source_deleted"
	// Reports: generation asked for, a share link made or revoked, a
	// schedule created, changed or deleted.
	ReportGenerated       = "report_generated"
	ReportShared          = "report_shared"
	ReportUnshared        = "report_unshared"
	ReportScheduleCreated = "report_schedule_created"
	ReportScheduleUpdated = "report_schedule_updated"
	ReportScheduleDeleted = "report_schedule_deleted"
	UserCreated           = "user_created"
	UserRoleChanged       = "user_role_changed"
	UserDeleted           = "user_deleted"
	SettingsUpdated       = "settings_updated"
)

// Events lists every event code, in the order of SPEC.md; the audit listing
// accepts exactly these as its `event` filter.
var Events = []string{
	Login, Logout, LoginFailed, Register, EmailVerified, TwoFAEnabled, TwoFADisabled,
	FileUploaded, FileRejectedPw, JobCreated, JobStarted, JobCompleted, FilesDeleted, FilesExpiring,
	GDPRCheckOff, CreditsAdded,
	APIKeyCreated, APIKeyRevoked, APIKeyUsed,
	SourceCreated, SourceUpdated, SourceDeleted,
	ReportGenerated, ReportShared, ReportUnshared, ReportScheduleCreated, ReportScheduleUpdated, ReportScheduleDeleted,
	UserCreated, UserRoleChanged, UserDeleted, SettingsUpdated,
	TwoFALocked,
}

// Known reports whether code is an event code.
func Known(code string) bool {
	for _, e := range Events {
		if e == code {
			return true
		}
	}
	return false
}
