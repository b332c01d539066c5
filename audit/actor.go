package audit

// Actor is who asked for an audited action: the organisation, the user
// (empty for an API key) and the client's address.
type Actor struct {
	OrgID  string
	UserID string
	IP     string
}

// Entry is the audit entry of event by the actor.
func (a Actor) Entry(event string, metadata map[string]any) Entry {
	return Entry{OrgID: a.OrgID, UserID: a.UserID, Event: event, IP: a.IP, Metadata: metadata}
}
