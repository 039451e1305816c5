#pragma once

#include "blobstorage.h"

#include <QHash>
#include <QSet>
#include <QSqlDatabase>
#include <QStringList>

#include <optional>

namespace ddl::server {

// Finds a stored blob's bytes, wherever they lie: in a pack (its place is in the blobs table)
// or in a file of its own. Every reader of blob bytes goes through here, so none reads a pack
// past the end of the blob it asked for.
class BlobLocator
{
public:
    BlobLocator(const QSqlDatabase &db, const BlobStorage &storage);

    // Where the blob's bytes are; nothing for a blob the server does not hold.
    std::optional<BlobLocation> locate(const QString &sha256) const;
    bool has(const QString &sha256) const { return locate(sha256).has_value(); }
    // The blob's first maxBytes bytes (all of a smaller one).
    Result<QByteArray> read(const QString &sha256, qint64 maxBytes) const;
    // Which of digests the store records, each with its pack (empty for a file of its own).
    // Whether their bytes are still there is the caller's to check, off the event loop
    // (present()): a restore may bring back a database newer than its data folder.
    Result<QHash<QString, QString>> recorded(const QStringList &digests) const;
    // Off the event loop (it looks at the disk): which of the recorded blobs (digest -> pack, as
    // recorded() gives them) still have their bytes, in their pack or in a file of their own.
    static QSet<QString> present(const BlobStorage &storage,
                                 const QHash<QString, QString> &recorded);
    // Pack names are the server's own ("<uuid>.pack"); anything else in the column is not followed.
    static bool isPackName(const QString &name);

private:
    QSqlDatabase m_db;
    BlobStorage m_storage;
};

} // namespace ddl::server
