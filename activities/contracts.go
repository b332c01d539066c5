package activities

import (
	"context"
)

// ContractTally counts what a scan's contract evaluation found.
type ContractTally struct {
	Evaluated int `json:"evaluated"`
	Violated  int `json:"violated"`
}

// EvaluateContracts evaluates, once a scheduled scan has read every
// table, the enabled contracts of its source whose table it measured,
// raising one contract_violation alert and webhook event per contract the
// scan broke (contractsvc.Service.EvaluateScan). Run again, it raises
// nothing twice. A manual scan evaluates nothing.
func (a *Activities) EvaluateContracts(ctx context.Context, in ScanRef) (ContractTally, error) {
	var tally ContractTally
	sc, err := a.openScan(ctx, in)
	if err != nil || a.Contracts == nil {
		return tally, err
	}
	evs, err := a.Contracts.EvaluateScan(ctx, sc)
	if err != nil {
		return tally, scanGone(err)
	}
	for _, ev := range evs {
		tally.Evaluated++
		if ev.Failed > 0 {
			tally.Violated++
		}
	}
	return tally, nil
}
