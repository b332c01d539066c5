package postgresql

import (
	"context"

	"github.com/dqs/dqs/connectors"
)

// relKinds are the relations a source lists and profiles: ordinary and
// partitioned tables, views and materialized views. Partitions are left
// out (their parent stands for them), and so are foreign tables, whose
// scans would run on another server.
const relKinds = `('r', 'p', 'v', 'm')`

// listSQL reads the catalogue only. A partitioned table's estimate and size
// are its partitions' (its own reltuples, set by ANALYZE, would count them
// twice). Relations the user may not read are left out.
const listSQL = `
SELECT c.relname,
       coalesce((SELECT sum(greatest(l.reltuples, 0)) FROM pg_class l
                 WHERE l.oid IN (SELECT relid FROM pg_partition_tree(c.oid) WHERE isleaf) OR (l.oid = c.oid AND c.relkind <> 'p')), 0)::int8,
       coalesce((SELECT sum(pg_total_relation_size(l.oid)) FROM pg_class l
                 WHERE l.oid IN (SELECT relid FROM pg_partition_tree(c.oid) WHERE isleaf) OR (l.oid = c.oid AND c.relkind <> 'p')), 0)::int8
FROM pg_class c
JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE n.nspname = $1
  AND c.relkind IN ` + relKinds + `
  AND NOT c.relispartition
  AND has_table_privilege(c.oid, 'SELECT')
ORDER BY c.relname COLLATE "C"`

// List returns the schema's tables and views, by name (byte order), with
// the catalogue's row estimate (pg_class.reltuples, 0 when the table was
// never analysed) and size on disk (pg_total_relation_size: data, TOAST
// and indexes). It never counts rows. An unknown schema lists nothing.
func (s *Source) List(ctx context.Context) ([]connectors.Table, error) {
	conn, err := s.acquire(ctx)
	if err != nil {
		return nil, err
	}
	defer s.release(conn)
	ctx, cancel := context.WithTimeout(ctx, s.timeout)
	defer cancel()
	rows, err := conn.Query(ctx, listSQL, s.schema)
	if err != nil {
		return nil, s.queryError(ctx, "", err)
	}
	defer rows.Close()
	tables := []connectors.Table{}
	for rows.Next() {
		t := connectors.Table{Schema: s.schema}
		if err := rows.Scan(&t.Name, &t.RowEstimate, &t.SizeBytes); err != nil {
			return nil, s.queryError(ctx, "", err)
		}
		tables = append(tables, t)
	}
	if err := rows.Err(); err != nil {
		return nil, s.queryError(ctx, "", err)
	}
	return tables, nil
}
