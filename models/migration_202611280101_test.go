package models_test

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/dqs/dqs/lineage"
	"github.com/dqs/dqs/models"
	"github.com/dqs/dqs/models/modelstest"
)

// TestMigratingToLineage: what a database held before the lineage graph
// gets its automatic nodes: each source, each table a completed scan read
// (with its edge from the source; a failed table gets none), each
// uploaded file; and the stores find those nodes afterwards instead of
// making twins.
func TestMigratingToLineage(t *testing.T) {
	for _, d := range modelstest.Dialects {
		t.Run(string(d), func(t *testing.T) {
			ctx := context.Background()
			db := openMigratedTo(t, d, migrationBefore(t, "202611280101_contracts_lineage"))
			s := models.NewStores(db)
			org := insertOldOrg(t, db, "A")
			now := time.Now().UTC()
			// Rows as the old release wrote them.
			insert := func(table string, row map[string]any) {
				t.Helper()
				if err := db.Gorm.Table(table).Create(row).Error; err != nil {
					t.Fatalf("%s: %v", table, err)
				}
			}
			insert("sources", map[string]any{"org_id": org.ID, "name": "shop", "type": "postgresql", "config": "{}",
				"credentials_sealed": "x", "created_at": now, "updated_at": now})
			var srcID int64
			if err := db.Gorm.Table("sources").Select("id").Where("org_id = ?", org.ID).Scan(&srcID).Error; err != nil {
				t.Fatal(err)
			}
			insert("scans", map[string]any{"id": "scn_aaaaaaaaaaaa", "org_id": org.ID, "source_id": srcID, "status": "completed",
				"tables": "[]", "created_at": now})
			for _, tb := range []struct{ name, status string }{{"orders", "completed"}, {"broken", "failed"}} {
				insert("scan_tables", map[string]any{"org_id": org.ID, "scan_id": "scn_aaaaaaaaaaaa", "table_name": tb.name,
					"status": tb.status, "created_at": now})
			}
			job := &models.Job{Filenames: `["people.csv"]`, RetentionMode: "short_term", RetentionDays: 30, CreatedAt: now}
			if err := s.Jobs.Create(ctx, org.ID, job); err != nil {
				t.Fatal(err)
			}
			insert("files", map[string]any{"org_id": org.ID, "job_id": job.ID, "file_name": "people.csv", "storage_key": "k",
				"status": "completed", "created_at": now})
			if err := db.Migrate(ctx); err != nil {
				t.Fatal(err)
			}

			g, _, err := s.Lineage.Graph(ctx, org.ID, 100, 100)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, n := range g.Nodes {
				got = append(got, string(n.Type)+":"+n.Name)
			}
			if want := []string{"source:shop", "table:orders", "file:people.csv"}; !slices.Equal(got, want) || len(g.Edges) != 1 ||
				g.Edges[0].Source != g.Nodes[0].ID || g.Edges[0].Target != g.Nodes[1].ID {
				t.Fatalf("graph after the migration = %v with edges %+v, want %v and shop → orders", got, g.Edges, want)
			}
			// The stores take the backfilled nodes as theirs.
			table, err := s.Lineage.TableNode(ctx, org.ID, srcID, "orders")
			if err != nil || table.ID != g.Nodes[1].ID {
				t.Fatalf("table node = %+v, %v; want the backfilled one", table, err)
			}
			name := "shop db"
			if _, err := s.Sources.Update(ctx, org.ID, srcID, models.SourceUpdate{Name: &name}); err != nil {
				t.Fatal(err)
			}
			src, err := s.Lineage.NodeByRef(ctx, org.ID, lineage.TypeSource, models.SourceRef(srcID))
			if err != nil || src.ID != g.Nodes[0].ID || src.Name != "shop db" {
				t.Fatalf("source node after a rename = %+v, %v; want the backfilled one renamed", src, err)
			}
		})
	}
}
