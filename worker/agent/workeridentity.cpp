#include "workeridentity.h"

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

using namespace Qt::StringLiterals;

namespace ddl::worker {

Result<std::optional<WorkerIdentity>> WorkerIdentity::load(const QString &path)
{
    QFile file(path);
    if (!file.exists())
        return std::optional<WorkerIdentity>();
    if (!file.open(QIODevice::ReadOnly)) {
        return Error::make(ErrorCode::IoError,
                           u"cannot read %1: %2"_s.arg(path, file.errorString()));
    }
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(file.readAll(), &parseError);
    const QJsonObject object = document.object();
    WorkerIdentity identity;
    identity.server = object.value(u"server"_s).toString();
    identity.workerId = object.value(u"worker_id"_s).toVariant().toString();
    identity.workerToken = object.value(u"worker_token"_s).toString();
    if (parseError.error != QJsonParseError::NoError || identity.workerId.isEmpty() ||
        identity.workerToken.isEmpty()) {
        return Error::make(ErrorCode::InvalidIdentity,
                           u"%1 is not a worker identity (worker_id and worker_token); remove "
                           u"it to enroll this worker again"_s.arg(path));
    }
    return std::optional<WorkerIdentity>(identity);
}

Status WorkerIdentity::save(const QString &path) const
{
    QSaveFile file(path);
    if (!file.open(QIODevice::WriteOnly)) {
        return Error::make(ErrorCode::IoError,
                           u"cannot write %1: %2"_s.arg(path, file.errorString()));
    }
    // Restrict the temporary file before the token is written into it.
    file.setPermissions(QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    const QJsonObject object{
        {u"server"_s, server}, {u"worker_id"_s, workerId}, {u"worker_token"_s, workerToken}};
    file.write(QJsonDocument(object).toJson(QJsonDocument::Indented));
    if (!file.commit()) {
        return Error::make(ErrorCode::IoError,
                           u"cannot write %1: %2"_s.arg(path, file.errorString()));
    }
    QFile::setPermissions(path, QFileDevice::ReadOwner | QFileDevice::WriteOwner);
    return Ok{};
}

} // namespace ddl::worker
