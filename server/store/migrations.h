#pragma once

#include <QStringList>
#include <vector>

namespace ddl::server {

// The schema as a list of migrations; migration N (1-based) brings the schema to version N.
// Never edit a released migration: append a new one.
const std::vector<QStringList> &schemaMigrations();

} // namespace ddl::server
