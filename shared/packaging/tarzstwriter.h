#pragma once

#include "core/result.h"

#include <QByteArray>
#include <QString>

#include <memory>

namespace ddl {

// What a finished archive file is: where it lies, its SHA-256 (lowercase hex) and its size.
struct WrittenArchive
{
    QString path;
    QString sha256;
    qint64 size = 0;
};

// Writes a reproducible tar.zst (pax restricted, uid/gid 0, no owner names, the mtime given per
// entry) and hashes the bytes as they stream out. The file appears atomically on commit(); an
// uncommitted writer leaves nothing behind. Entry paths and link targets are UTF-8.
class TarZstWriter
{
public:
    TarZstWriter();
    ~TarZstWriter();
    TarZstWriter(const TarZstWriter &) = delete;
    TarZstWriter &operator=(const TarZstWriter &) = delete;

    Status open(const QString &path);
    Status addDirectory(const QByteArray &path, int permissions, qint64 mtime);
    Status addSymlink(const QByteArray &path, const QByteArray &target, qint64 mtime);
    // Starts a regular file of exactly size bytes; send them with writeData().
    Status beginFile(const QByteArray &path, int permissions, qint64 size, qint64 mtime);
    Status writeData(const char *data, qint64 size);
    // Finishes the archive, renames it into place and returns its digest and size.
    Result<WrittenArchive> commit();

private:
    struct Private;
    std::unique_ptr<Private> d;
};

} // namespace ddl
