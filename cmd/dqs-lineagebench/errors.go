package main

import (
	"errors"

	"github.com/dqs/dqs/lineage"
)

func asCycle(err error, ce **lineage.CycleError) bool { return errors.As(err, ce) }

func asDup(err error, de **lineage.DuplicateEdgeError) bool { return errors.As(err, de) }
