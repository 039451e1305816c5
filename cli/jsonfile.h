#pragma once

#include "core/result.h"

#include <QCoreApplication>
#include <QFileDevice>
#include <QJsonObject>
#include <QString>

namespace ddl::cli {

// Reading and atomically replacing the small JSON files the client keeps in its config folder.
class JsonFile
{
    Q_DECLARE_TR_FUNCTIONS(JsonFile)
public:
    enum class Access { Normal, OwnerOnly };

    // The object in the file; an empty object when the file does not exist.
    static Result<QJsonObject> read(const QString &path);
    // Replaces the file at once (QSaveFile). OwnerOnly makes the file 0600 and its folder 0700
    // before anything is written into it.
    static Status write(const QString &path, const QJsonObject &object, Access access);
};

} // namespace ddl::cli
