package models

// Page selects a slice of a list; the API has already validated and clamped it.
type Page struct {
	Limit  int
	Offset int
}
