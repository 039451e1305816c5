#pragma once

#include "api/imagepush.h"

#include <QPointer>
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableView;

namespace ddl::desktop {

class ImageModel;

// The images screen: the user's images on the server (jobs name them ddl://NAME), a local podman
// image pushed from here (only the layers the server lacks travel, with progress), and remove.
class ImagesView : public QWidget
{
    Q_OBJECT
public:
    explicit ImagesView(QWidget *parent = nullptr);
    void setClient(ApiClient *client);
    ImageModel *model() const { return m_model; }
    void refresh();
    void pushImage(const QString &localImage, const QString &name);
    void removeImage(const QString &name);
    ImagePush *currentPush() const { return m_push; }
    QString statusText() const;

signals:
    void refreshed();
    void pushFinished(bool ok, const QString &message);

protected:
    void showEvent(QShowEvent *event) override;
    void changeEvent(QEvent *event) override;

private:
    void retranslateUi();
    void setStatus(const QString &text, bool hint = false);

    QPointer<ApiClient> m_client;
    ImageModel *m_model;
    QTableView *m_table;
    QProgressBar *m_progress;
    QLabel *m_status;
    QPushButton *m_pushButton;
    QPushButton *m_cancelButton;
    QPushButton *m_removeButton;
    QPushButton *m_refreshButton;
    bool m_showingHint = true;
    QPointer<ImagePush> m_push;
};

} // namespace ddl::desktop
