#pragma once

#include "command.h"

namespace ddl::cli {

// ddlcli image push IMAGE [--name NAME] | list | rm NAME: the user's images on the server, which
// jobs name as ddl://NAME. A push saves a local podman image as an OCI layout (podman save
// --format oci-dir) and sends it as a dataset manifest: each layer is a blob, sent only when the
// server does not have it yet.
class ImageCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(ImageCommand)
public:
    QString name() const override { return QStringLiteral("image"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    int maxPositional() const override { return 2; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;

    // Sends a local podman image to the server as ddl://name; prints what was sent.
    static Status push(CliContext &context,
                       const QString &localImage,
                       const QString &name,
                       OutputFormat format);

private:
    Status list(CliContext &context, OutputFormat format);
    Status remove(CliContext &context, const QString &name, OutputFormat format);
};

} // namespace ddl::cli
