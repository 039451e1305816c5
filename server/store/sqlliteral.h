#pragma once

#include <QString>
#include <QStringList>

#include <optional>

namespace ddl::server::sqlliteral {

// Values written into a statement's text instead of bound. Qt's SQLite driver turns every ? into
// a named parameter and SQLite looks each name up in a list, so binding grows with the square of
// a statement's values: a 500-digest IN list spent longer binding than querying. Only values
// every character of which is known to be safe are written; anything else gives nullopt.

// 'ab12...' for a SHA-256 hex digest (64 lowercase hex digits).
std::optional<QString> digest(const QString &sha256);
// 'a', 'b', ... for digests.
std::optional<QString> digestList(const QStringList &sha256s);
// 'text' for text of letters, digits and ":._-" only (upload owners, pack names), at most 200.
std::optional<QString> plainText(const QString &text);

} // namespace ddl::server::sqlliteral
