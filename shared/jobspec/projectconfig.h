#pragma once

#include "core/result.h"
#include "jobspec/jobspecparser.h"

#include <QByteArray>
#include <QString>

namespace ddl {

// A DDL project's job as its task.yaml describes it, read the same way by `ddlcli submit` and by
// ddl-desktop's submit wizard: the spec (named after the project's folder when the file names no
// job) and the dataset folder that dataset_location names, relative to the project's folder.
struct ProjectConfig
{
    SpecParseResult parsed;
    QString datasetFolder; // absolute; empty when the spec has errors

    static constexpr QLatin1StringView FileName{"task.yaml"};

    // "my model 2" -> "my-model-2": what a job is called when its task.yaml names none.
    static QString defaultJobName(const QString &folderName);
    static ProjectConfig fromTaskYaml(const QByteArray &yaml, const QString &projectFolder);
    // The project folder's own task.yaml, if it has one (std::nullopt: it has none).
    static std::optional<Result<ProjectConfig>> readFrom(const QString &projectFolder);

    // Refuses a dataset_location that is no folder, naming the field and where it looked.
    Status checkDatasetFolder() const;
};

} // namespace ddl
