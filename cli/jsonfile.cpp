#include "jsonfile.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QSaveFile>

using namespace Qt::Literals::StringLiterals;

namespace ddl::cli {

Result<QJsonObject> JsonFile::read(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return QJsonObject();
    if (!file.open(QIODevice::ReadOnly)) {
        return Error::make(ErrorCode::IoError,
                           tr("cannot read %1: %2").arg(path, file.errorString()));
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    if (parseError.error != QJsonParseError::NoError || !document.isObject()) {
        const QString reason = parseError.error != QJsonParseError::NoError
                                   ? parseError.errorString()
                                   : tr("not a JSON object");
        return Error::make(ErrorCode::InvalidConfig,
                           tr("%1 is not valid JSON (%2 at offset %3); fix or delete it")
                               .arg(path, reason)
                               .arg(parseError.offset));
    }
    return document.object();
}

Status JsonFile::write(const QString &path, const QJsonObject &object, Access access)
{
    const QString folder = QFileInfo(path).absolutePath();
    if (!QDir().mkpath(folder)) {
        return Error::make(ErrorCode::IoError, tr("cannot create the folder %1").arg(folder));
    }
    const auto ownerOnly = QFileDevice::ReadOwner | QFileDevice::WriteOwner;
    if (access == Access::OwnerOnly &&
        !QFile::setPermissions(folder, ownerOnly | QFileDevice::ExeOwner)) {
        return Error::make(ErrorCode::IoError,
                           tr("cannot make %1 private (mode 0700)").arg(folder));
    }
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return Error::make(ErrorCode::IoError,
                           tr("cannot write %1: %2").arg(path, file.errorString()));
    }
    // The temporary file is private before the secrets go into it, and stays so once renamed.
    if (access == Access::OwnerOnly && !file.setPermissions(ownerOnly)) {
        file.cancelWriting();
        return Error::make(ErrorCode::IoError, tr("cannot make %1 private (mode 0600)").arg(path));
    }
    file.write(QJsonDocument(object).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        return Error::make(ErrorCode::IoError,
                           tr("cannot write %1: %2").arg(path, file.errorString()));
    }
    if (access == Access::OwnerOnly)
        QFile::setPermissions(path, ownerOnly);
    return Ok{};
}

} // namespace ddl::cli
