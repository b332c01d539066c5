package corrections

// cellFix fixes one value. fixed is false when the value needs fixing but
// cannot be (it is left as it is and counted as unfixed); a value that
// needs nothing comes back as it is, fixed.
type cellFix func(v string) (out string, fixed bool, err error)

// cellStep is a step that fixes the values of one column one at a time:
// format_fix and regex_replace.
type cellStep struct {
	col int
	// newFix makes the fix of a pass: a fix may keep state (a title
	// caser), which a pass must not share.
	newFix func(e *engine) cellFix
	// nullsToo: the fix also sees blank cells and null tokens (a regular
	// expression may mean to rewrite "N/A"); cells the reader flags null
	// it never sees, as they have no text.
	nullsToo bool
}

func (s *cellStep) newOp(e *engine) (op, error) {
	return &cellOp{e: e, step: s, fix: s.newFix(e)}, nil
}

type cellOp struct {
	e    *engine
	step *cellStep
	fix  cellFix
}

func (o *cellOp) do(r *row, c *StepChanges) (bool, error) {
	col := o.step.col
	v, null := r.Values[col], r.Null[col]
	if null || (!o.step.nullsToo && o.e.isNull(v, false)) {
		return true, nil
	}
	out, fixed, err := o.fix(v)
	switch {
	case err != nil:
		return false, err
	case !fixed:
		c.Unfixed++
		return true, nil
	}
	return true, o.e.set(r, col, out, c)
}
