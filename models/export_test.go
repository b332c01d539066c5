package models

// WaitLineageLoads waits for the background loads of lineage graphs that
// have started (tests only: the service never waits for them).
func WaitLineageLoads(d *DB) {
	if d.lineage != nil {
		d.lineage.loads.Wait()
	}
}
