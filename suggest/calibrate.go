package suggest

import "math"

// Feedback is the trust history of one (engine, correction type): how
// often users approved or rejected its suggestions, and found the applied
// steps helpful or not.
type Feedback struct{ Approved, Rejected, Helpful, Unhelpful int64 }

// PriorWeight is how many observations the raw confidence counts for in
// Calibrate.
const PriorWeight = 10

// Calibrate returns the confidence shown to users: the raw confidence
// shrunk towards the observed acceptance rate of its (engine, correction
// type). The model is a Beta-binomial posterior mean: the acceptance of a
// suggestion is a Bernoulli trial whose rate has a Beta prior centred on
// the raw confidence and worth PriorWeight trials, Beta(raw·W, (1−raw)·W);
// after good = Approved + Helpful successes and bad = Rejected + Unhelpful
// failures its mean is
//
//	(raw·W + good) / (W + good + bad),   W = PriorWeight = 10.
//
// It is raw without history, moves towards good/(good+bad) as the history
// grows (ten verdicts weigh as much as the engine's own estimate), rises
// with each good verdict and falls with each bad one, and stays in [0,1].
// A raw confidence outside [0,1] is clamped, and NaN counts as 0; negative
// counts count as none.
func Calibrate(raw float64, h Feedback) float64 {
	if math.IsNaN(raw) {
		raw = 0
	}
	raw = clamp(raw, 0, 1)
	good := float64(max(0, h.Approved)) + float64(max(0, h.Helpful))
	bad := float64(max(0, h.Rejected)) + float64(max(0, h.Unhelpful))
	if good+bad == 0 {
		return raw
	}
	return clamp((raw*PriorWeight+good)/(PriorWeight+good+bad), 0, 1)
}
