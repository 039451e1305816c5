#include "projectconfig.h"

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QRegularExpression>

using namespace Qt::StringLiterals;

namespace ddl {

QString ProjectConfig::defaultJobName(const QString &folderName)
{
    static const QRegularExpression invalid(u"[^A-Za-z0-9._~-]+"_s);
    QString name = folderName;
    name.replace(invalid, u"-"_s);
    return name;
}

ProjectConfig ProjectConfig::fromTaskYaml(const QByteArray &yaml, const QString &projectFolder)
{
    ProjectConfig config;
    config.parsed = JobSpecParser::parseTaskYamlDetailed(
        yaml, defaultJobName(QFileInfo(projectFolder).fileName()));
    if (config.parsed.ok()) {
        config.datasetFolder = QDir::cleanPath(
            QFileInfo(QDir(projectFolder), config.parsed.spec->datasetLocation).absoluteFilePath());
    }
    return config;
}

std::optional<Result<ProjectConfig>> ProjectConfig::readFrom(const QString &projectFolder)
{
    QFile file(QDir(projectFolder).filePath(FileName));
    if (!file.exists())
        return std::nullopt;
    if (!file.open(QIODevice::ReadOnly)) {
        return Result<ProjectConfig>(Error::make(
            ErrorCode::IoError, u"cannot read %1: %2"_s.arg(file.fileName(), file.errorString())));
    }
    // A task.yaml is a few lines; one far larger is not one.
    constexpr qint64 MaxBytes = 1024 * 1024;
    if (file.size() > MaxBytes) {
        return Result<ProjectConfig>(Error::make(
            ErrorCode::InvalidConfig,
            u"%1 is %2 bytes; a task.yaml is at most %3"_s.arg(file.fileName())
                .arg(file.size())
                .arg(MaxBytes)));
    }
    return Result<ProjectConfig>(fromTaskYaml(file.readAll(), projectFolder));
}

Status ProjectConfig::checkDatasetFolder() const
{
    if (datasetFolder.isEmpty() || QFileInfo(datasetFolder).isDir())
        return Ok{};
    return Error::make(ErrorCode::NotFound,
                       u"job_data.dataset.dataset_location: %1 is not a folder (a relative path "
                       u"starts at the project's folder)"_s.arg(datasetFolder),
                       u"job_data.dataset.dataset_location"_s);
}

} // namespace ddl
