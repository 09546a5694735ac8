package store

import (
	"fmt"
	"time"
)

// sqliteTime is how SQLite columns hold instants: UTC text of fixed width,
// so that comparing the text compares the times, and readable in the
// sqlite3 shell. PostgreSQL columns are timestamptz. Both keep
// microseconds.
const sqliteTime = "2006-01-02T15:04:05.000000Z"

// at turns t into the driver's argument for a time column.
func (s *Store) at(t time.Time) any {
	t = t.UTC().Truncate(time.Microsecond)
	if s.driver == SQLite {
		return t.Format(sqliteTime)
	}
	return t
}

// clock is the store's time, at the precision the columns keep.
func (s *Store) clock() time.Time { return s.now().UTC().Truncate(time.Microsecond) }

// timeCol scans a time column of either driver; NULL leaves Valid false.
type timeCol struct {
	Time  time.Time
	Valid bool
}

func (c *timeCol) Scan(src any) error {
	switch v := src.(type) {
	case nil:
		c.Time, c.Valid = time.Time{}, false
		return nil
	case time.Time:
		c.Time, c.Valid = v.UTC(), true
		return nil
	case string:
		return c.parse(v)
	case []byte:
		return c.parse(string(v))
	default:
		return fmt.Errorf("time column: unexpected %T", src)
	}
}

func (c *timeCol) parse(v string) error {
	t, err := time.Parse(time.RFC3339Nano, v)
	if err != nil {
		return fmt.Errorf("time column: %w", err)
	}
	c.Time, c.Valid = t.UTC(), true
	return nil
}
