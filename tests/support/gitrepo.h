#pragma once

#include <QByteArray>
#include <QMap>
#include <QString>
#include <QStringList>

// Real git repositories in a test's temporary folder, as users hand them to ddlcli.

// Runs git in repo as the author "DDL Test"; true when it exits 0.
bool git(const QString &repo, const QStringList &args);
// Makes repo with just these files (name -> content) and commits them; returns repo, or an empty
// string when a step failed.
QString makeGitRepo(const QString &repo, const QMap<QString, QByteArray> &files);
// Makes repo as a copy of examples/<exampleFolder> (from DDL_SOURCE_DIR), committed.
QString makeExampleGitRepo(const QString &repo, const QString &exampleFolder);
