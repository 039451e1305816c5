#pragma once

#include "command.h"

#include "api/datasetupload.h"

namespace ddl {
class ApiClient;
}

namespace ddl::cli {

class Console;

// ddlcli dataset upload DIR --name NAME | list | download NAME --dest DIR | rm NAME:
// the user's named datasets, each a manifest of deduplicated blobs on the server.
class DatasetCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(DatasetCommand)
public:
    QString name() const override { return QStringLiteral("dataset"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    int maxPositional() const override { return 2; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;

    // Puts folder on the server as a dataset manifest (only what the server lacks is sent),
    // with hashing and sending progress on the console; the manifest's digest. Shared by
    // `dataset upload` and `submit`.
    // With a name the dataset (or image, by collection) is named too, and *created holds the
    // server's answer; *bytesSent and *bytesSkipped what was sent and what the server had.
    static Result<QString> send(Console &console,
                                ApiClient &api,
                                const QString &folder,
                                const QString &name = {},
                                QJsonObject *created = nullptr,
                                DatasetUpload::Collection collection =
                                    DatasetUpload::Collection::Datasets,
                                qint64 *bytesSent = nullptr,
                                qint64 *bytesSkipped = nullptr);

private:
    Status upload(CliContext &context, const QString &folder, const ParsedArguments &arguments);
    Status list(CliContext &context, OutputFormat format);
    Status download(CliContext &context, const QString &name, const ParsedArguments &arguments);
    Status remove(CliContext &context, const QString &name, OutputFormat format);
};

} // namespace ddl::cli
