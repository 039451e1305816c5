#pragma once

#include "command.h"

namespace ddl::cli {

// ElasticDL's image workflow, as its client writes it:
//   zoo init --base_image=IMAGE [--extra_pypi_index=URL] [--force]   writes ./Dockerfile
//   zoo build --image=NAME [PATH]                                     podman build of PATH
//   zoo push IMAGE [--name NAME] [--to_registry]                     to DDL (ddl://NAME), or
//                                                                     podman push to its registry
// A job then names the image: elasticdl train --image_name=ddl://NAME (docs/images.md).
class ZooCommand : public Command
{
    Q_DECLARE_TR_FUNCTIONS(ZooCommand)
public:
    QString name() const override { return QStringLiteral("zoo"); }
    QString summary() const override;
    QList<OptionSpec> options() const override;
    int maxPositional() const override { return 2; }
    Status run(CliContext &context, const ParsedArguments &arguments) override;

    // The Dockerfile zoo init writes: the model zoo copied to /model_zoo, its requirements.txt
    // installed when it has one.
    static QByteArray dockerfile(const QString &baseImage, const QString &extraPypiIndex);

private:
    Status init(CliContext &context, const ParsedArguments &arguments);
    Status build(CliContext &context, const QString &path, const ParsedArguments &arguments);
    Status push(CliContext &context, const QString &image, const ParsedArguments &arguments);
};

} // namespace ddl::cli
