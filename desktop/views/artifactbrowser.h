#pragma once

#include <QJsonArray>
#include <QPointer>
#include <QWidget>

class QLabel;
class QPlainTextEdit;
class QProgressBar;
class QPushButton;
class QStackedWidget;
class QTableWidget;
class QTreeView;

namespace ddl {
class ApiClient;
class ArtifactDownload;
}

namespace ddl::desktop {

class ArtifactModel;

// A job's outputs: the tree with sizes, a preview of text, JSON, CSV and images (the first
// PreviewBytes of the file), download of the selection or everything with progress and resume,
// and the folder it landed in.
class ArtifactBrowser : public QWidget
{
    Q_OBJECT
public:
    static constexpr qint64 PreviewBytes = 512 * 1024;
    enum class PreviewKind { None, Text, Table, Image };

    ArtifactBrowser(ApiClient *client, const QString &jobUuid, QWidget *parent = nullptr);

    ArtifactModel *model() const { return m_model; }
    QTreeView *tree() const { return m_tree; }
    void reload();
    void preview(const QString &path);
    PreviewKind previewKind() const { return m_previewKind; }
    QString previewText() const;
    QTableWidget *previewTable() const { return m_table; }
    // Downloads files (ArtifactModel::filesUnder) into folder, without asking.
    void downloadTo(const QJsonArray &files, const QString &folder);
    QString lastDownloadFolder() const { return m_lastFolder; }

signals:
    void listed(int files);
    void previewShown(const QString &path);
    void downloadFinished(bool ok, const QString &message);

private:
    void download(bool all);
    void showBytes(const QString &path, const QByteArray &bytes);

    QPointer<ApiClient> m_client;
    QString m_jobUuid;
    ArtifactModel *m_model;
    QTreeView *m_tree;
    QStackedWidget *m_previewStack;
    QPlainTextEdit *m_text;
    QTableWidget *m_table;
    QLabel *m_image;
    QLabel *m_status;
    QProgressBar *m_progress;
    QPushButton *m_openFolder;
    ArtifactDownload *m_downloader;
    PreviewKind m_previewKind = PreviewKind::None;
    QString m_lastFolder;
    QString m_previewPath;
};

} // namespace ddl::desktop
