package webhook

import (
	"encoding/json"
	"fmt"
	"strings"
)

// Message is what a webhook posts: a one-line title and plain-text
// details.
type Message struct {
	Title string
	Text  string
}

// Platform limits: Slack refuses a header over 150 characters and a
// section over 3,000; Teams cards are kept to the same sizes.
const (
	maxTitle = 150
	maxText  = 3000
)

// Payload renders the message as the JSON body of the platform's incoming
// webhook (SPEC.md "Webhook payload shapes").
func Payload(platform string, m Message) ([]byte, error) {
	title, text := truncate(m.Title, maxTitle), truncate(m.Text, maxText)
	switch platform {
	case Slack:
		return json.Marshal(slackMessage{Blocks: []slackBlock{
			{Type: "header", Text: slackText{Type: "plain_text", Text: title}},
			{Type: "section", Text: slackText{Type: "mrkdwn", Text: slackSection(m.Text)}},
		}})
	case Teams:
		return json.Marshal(teamsMessage{Type: "message", Attachments: []teamsAttachment{{
			ContentType: "application/vnd.microsoft.card.adaptive",
			Content: adaptiveCard{
				Schema:  "http://adaptivecards.io/schemas/adaptive-card.json",
				Type:    "AdaptiveCard",
				Version: "1.4",
				Body: []textBlock{
					{Type: "TextBlock", Text: title, Weight: "Bolder", Size: "Medium", Wrap: true},
					{Type: "TextBlock", Text: text, Wrap: true},
				},
			},
		}}})
	}
	return nil, fmt.Errorf("webhook: unknown platform %q", platform)
}

type slackMessage struct {
	Blocks []slackBlock `json:"blocks"`
}

type slackBlock struct {
	Type string    `json:"type"`
	Text slackText `json:"text"`
}

type slackText struct {
	Type string `json:"type"`
	Text string `json:"text"`
}

type teamsMessage struct {
	Type        string            `json:"type"`
	Attachments []teamsAttachment `json:"attachments"`
}

type teamsAttachment struct {
	ContentType string       `json:"contentType"`
	Content     adaptiveCard `json:"content"`
}

type adaptiveCard struct {
	Schema  string      `json:"$schema"`
	Type    string      `json:"type"`
	Version string      `json:"version"`
	Body    []textBlock `json:"body"`
}

type textBlock struct {
	Type   string `json:"type"`
	Text   string `json:"text"`
	Weight string `json:"weight,omitempty"`
	Size   string `json:"size,omitempty"`
	Wrap   bool   `json:"wrap"`
}

// slackEscape escapes the three characters Slack's mrkdwn gives meaning
// to, so a file or column name cannot forge a link or a mention.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

// slackSection escapes the text, then truncates it to Slack's limit
// without cutting an escape sequence in half.
func slackSection(text string) string {
	escaped := slackEscape(text)
	r := []rune(escaped)
	if len(r) <= maxText {
		return escaped
	}
	cut := string(r[:maxText-1])
	if amp := strings.LastIndexByte(cut, '&'); amp >= 0 && !strings.Contains(cut[amp:], ";") {
		cut = cut[:amp]
	}
	return cut + "…"
}

func truncate(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	return string(r[:n-1]) + "…"
}
