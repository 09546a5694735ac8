package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
)

// TenantReadOnly reads the run-time read-only switch of a tenant ("" for
// the whole organisation): set is false when none was thrown.
func (s *Store) TenantReadOnly(ctx context.Context, tenant string) (readOnly, set bool, err error) {
	var v any
	err = s.b.reader().queryRow(ctx, `SELECT read_only FROM tenant_settings WHERE tenant = $1`, tenant).Scan(&v)
	if errors.Is(err, ErrNotFound) || errors.Is(err, sql.ErrNoRows) {
		return false, false, nil
	}
	if err != nil {
		return false, false, fmt.Errorf("store: tenant %q read-only switch: %w", tenant, err)
	}
	switch b := v.(type) {
	case bool:
		return b, true, nil
	case int64:
		return b != 0, true, nil
	default:
		return false, false, fmt.Errorf("store: tenant %q read-only switch: unexpected %T", tenant, v)
	}
}

// SetTenantReadOnly throws the read-only switch of a tenant ("" for the
// organisation); nil clears it, so the configuration's default applies
// again. On PostgreSQL the change is notified (TopicSettings, the tenant)
// in the same transaction.
func (s *Store) SetTenantReadOnly(ctx context.Context, tenant string, readOnly *bool, by string) error {
	return s.write(ctx, "set tenant read-only", func(q querier) error {
		if err := s.notify(ctx, q, TopicSettings, tenant); err != nil {
			return err
		}
		if readOnly == nil {
			_, err := q.exec(ctx, `DELETE FROM tenant_settings WHERE tenant = $1`, tenant)
			return err
		}
		var v any = *readOnly
		if s.driver == SQLite {
			v = 0
			if *readOnly {
				v = 1
			}
		}
		_, err := q.exec(ctx, `INSERT INTO tenant_settings (tenant, read_only, updated_at, updated_by) VALUES ($1, $2, $3, $4)
ON CONFLICT (tenant) DO UPDATE SET read_only = excluded.read_only, updated_at = excluded.updated_at, updated_by = excluded.updated_by`,
			tenant, v, s.at(s.clock()), by)
		return err
	})
}
