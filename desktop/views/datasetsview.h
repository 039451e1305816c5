#pragma once

#include "core/folderdrop.h"

#include <QHash>
#include <QPointer>
#include <QTimer>
#include <QWidget>

class QLabel;
class QDropEvent;
class QProgressBar;
class QPushButton;
class QTableView;
class QTreeWidget;
class QTreeWidgetItem;

namespace ddl {
class ApiClient;
class DatasetUpload;
}

namespace ddl::desktop {

class DatasetModel;

// The datasets screen: the list, a folder dropped on it (or chosen) is uploaded as a dataset
// with per-file progress, and delete.
class DatasetsView : public QWidget
{
    Q_OBJECT
public:
    // How long the reason a drag was refused stays on screen.
    static constexpr int DropMessageMs = 5000;

    explicit DatasetsView(QWidget *parent = nullptr);
    void setClient(ApiClient *client);
    DatasetModel *model() const { return m_model; }
    void refresh();
    // Uploads folder as a dataset named after it.
    void uploadFolder(const QString &folder);
    void deleteDataset(const QString &name);
    DatasetUpload *currentUpload() const;
    QTreeWidget *fileList() const { return m_files; }
    QString statusText() const;
    // Why the drag over the screen is refused (shown beside the status line); empty when none.
    QString dropMessage() const;

signals:
    void refreshed();
    void uploadFinished(bool ok, const QString &message);

protected:
    void showEvent(QShowEvent *event) override;
    // A folder dropped from the file manager is uploaded; several items or a file are refused.
    void dragEnterEvent(QDragEnterEvent *event) override;
    void dragMoveEvent(QDragMoveEvent *event) override;
    void dropEvent(QDropEvent *event) override;
    void dragLeaveEvent(QDragLeaveEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void setStatus(const QString &text, bool hint = false);

    QPointer<ApiClient> m_client;
    DatasetModel *m_model;
    QTableView *m_table;
    QTreeWidget *m_files;
    QProgressBar *m_hashing;
    QLabel *m_status;
    QLabel *m_dropMessage;
    QTimer m_dropMessageTimer;
    QPushButton *m_uploadButton;
    QPushButton *m_deleteButton;
    QPushButton *m_refreshButton;
    bool m_showingHint = true; // the status line shows the drop hint, nothing newer
    QPointer<DatasetUpload> m_upload;
    FolderDrop m_drag; // what the drag under way carries, inspected once when it entered
    QHash<QString, QTreeWidgetItem *> m_fileItems;
};

} // namespace ddl::desktop
