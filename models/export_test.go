package models

import (
	"time"

	"github.com/dqs/dqs/lineage"
)

// WaitLineageLoads waits for the background loads of lineage graphs that
// have started (tests only: the service never waits for them).
func WaitLineageLoads(d *DB) {
	if d.lineage != nil {
		d.lineage.loads.Wait()
	}
}

// SetLineageReloadGap sets the least time between two loads of one
// organisation's graph (tests load after every write).
func SetLineageReloadGap(d *DB, gap time.Duration) {
	if d.lineage != nil {
		d.lineage.reloadGap = gap
	}
}

// LineageGraphBytes is the size the cache counts for a copy of g.
func LineageGraphBytes(g lineage.Graph) int64 {
	var n int64
	for _, nd := range g.Nodes {
		n += lineageNodeSize(nd)
	}
	for _, e := range g.Edges {
		n += lineageEdgeSize(e)
	}
	return n
}
