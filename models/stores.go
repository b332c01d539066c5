package models

// Stores bundles the stores of one database.
type Stores struct {
	DB                 *DB
	Orgs               Orgs
	Users              Users
	RefreshTokens      RefreshTokens
	EmailVerifications EmailVerifications
	APIKeys            APIKeys
	Audit              AuditLogs
	Jobs               Jobs
	Files              Files
	Webhooks           Webhooks
	SecondFactor       SecondFactor
	Sources            Sources
	SourceSchedules    SourceSchedules
	Scans              Scans
	DiscoveredFiles    DiscoveredFiles
	MetricPoints       MetricPoints
	Anomalies          Anomalies
	Alerts             Alerts
	Contracts          Contracts
	Lineage            Lineage
	Reports            Reports
	Certificates       Certificates
	ReportSchedules    ReportSchedules
	Corrections        Corrections
	Suggestions        Suggestions
}

// NewStores returns the stores over db.
func NewStores(db *DB) *Stores {
	return &Stores{
		DB:                 db,
		Orgs:               Orgs{db},
		Users:              Users{db},
		RefreshTokens:      RefreshTokens{db},
		EmailVerifications: EmailVerifications{db},
		APIKeys:            APIKeys{db},
		Audit:              AuditLogs{db},
		Jobs:               Jobs{db},
		Files:              Files{db},
		Webhooks:           Webhooks{db},
		SecondFactor:       SecondFactor{db},
		Sources:            Sources{db},
		SourceSchedules:    SourceSchedules{db},
		Scans:              Scans{db},
		DiscoveredFiles:    DiscoveredFiles{db},
		MetricPoints:       MetricPoints{db},
		Anomalies:          Anomalies{db},
		Contracts:          Contracts{db},
		Lineage:            Lineage{db},
		Alerts:             Alerts{db},
		Reports:            Reports{db},
		Certificates:       Certificates{db},
		ReportSchedules:    ReportSchedules{db},
		Suggestions:        Suggestions{db},
		Corrections:        Corrections{db},
	}
}
