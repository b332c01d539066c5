package activities

import (
	"errors"

	"github.com/dqs/dqs/errs"
)

func isNotFound(err error) bool { return errors.Is(err, errs.ErrNotFound) }
