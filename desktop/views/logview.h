#pragma once

#include <QPointer>
#include <QTimer>
#include <QWidget>

class QCheckBox;
class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSlider;

namespace ddl {
class ApiClient;
}

namespace ddl::desktop {

class LogWindowLoader;
class TaskModel;

// Live logs of one job: a task picker, a window of the chosen task's log (the slider picks
// where in the whole log the window is; follow keeps to its end), and search in the window.
class LogView : public QWidget
{
    Q_OBJECT
public:
    LogView(ApiClient *client, const QString &jobUuid, TaskModel *tasks,
            QWidget *parent = nullptr);

    QPlainTextEdit *text() const { return m_text; }
    LogWindowLoader *loader() const { return m_loader; }
    void showTask(qint64 taskId);

private:
    void handleTasksChanged();
    void handleWindow(qint64 start, const QByteArray &bytes, qint64 logSize);
    void handleAppended(const QByteArray &bytes, qint64 logSize);
    void handleSliderMoved();
    void findNext();
    void updatePositionLabel();

    QPointer<ApiClient> m_client;
    QString m_jobUuid;
    TaskModel *m_tasks;
    QComboBox *m_taskCombo;
    QCheckBox *m_followCheck;
    QLineEdit *m_searchEdit;
    QLabel *m_positionLabel;
    QSlider *m_slider;
    QPlainTextEdit *m_text;
    LogWindowLoader *m_loader = nullptr;
    QTimer m_sliderDebounce;
    bool m_updatingSlider = false;
};

} // namespace ddl::desktop
